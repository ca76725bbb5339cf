/**
 * What the index holds of one node (the informer's indexer): every lock key's state, and an expiry
 * wheel that drops a state when its TTL runs out, so a key that expires without a notification
 * reaching the console still leaves the index on time. A polled node has no notifications to say
 * the key was extended meanwhile: there the wheel only names the keys to read again, shortly before
 * and at their expiry, and the read decides (an extension, a release, or an expiry confirmed).
 */
import type { NodeKeyState } from "../../read/key-state";
import { StoredState, type IndexedState } from "./indexed-state";

export type { IndexedState } from "./indexed-state";

/** Why a node no longer holds a key: the keyspace event that removed it, or none seen. */
export type RemovalCause = "deleted" | "expired" | "evicted" | "unknown";

export interface NodeStoreOptions {
  /**
   * Lock keys kept at most (CONSOLE_SCAN_MAX_KEYS: locks, not keys scanned; skipped keys are never
   * kept); beyond it new keys are left out and the store is `truncated`.
   */
  readonly maxKeys: number;
  /** The name and value instances already held for another node, when equal (shared strings). */
  readonly shared: (name: string, value: string) => { name: string; value: string };
  /** `key`'s state changed; null: the node holds nothing now, for `cause`. */
  readonly onChange: (key: string, state: IndexedState | null, cause?: RemovalCause) => void;
  /** The wheel's start (epoch ms). */
  readonly nowMs: number;
}

/** Expiries are kept in buckets of this many ms (a timer wheel). */
const EXPIRY_BUCKET_MS = 100;
const bucketOf = (expiresAtMs: number) => Math.floor(expiresAtMs / EXPIRY_BUCKET_MS);
/** The state has a TTL that runs out by `horizonMs`. */
const isDue = (state: IndexedState, horizonMs: number) =>
  state.expiresAtMs >= 0 && state.expiresAtMs <= horizonMs;
/**
 * A polled node's key is read again from this long before its expiry, every sweep, until a read
 * finds it extended or gone: a release in that stretch is still seen before the expiry (the library
 * extends 500 ms before, so an extension is usually found by the first read).
 */
export const CONFIRM_AHEAD_MS = 300;

export class NodeStore {
  readonly #options: NodeStoreOptions;
  readonly #entries = new Map<string, IndexedState>();
  /**
   * The wheel: bucket -> the keys that expire in it. A key with a TTL has exactly one slot: the
   * bucket of its expiry, or `#due` when that bucket was already swept (it expired meanwhile, or is
   * within CONFIRM_AHEAD_MS on a polled node); none while its confirming read is under way. An
   * extension or a removal moves or drops the slot, so keys extended a thousand times take one.
   */
  readonly #buckets = new Map<number, Set<string>>();
  readonly #due = new Set<string>();
  /** Buckets before it are swept (and gone); it and later ones still fill. */
  #sweptBucket: number;
  #generation = 0;
  #truncated = false;
  /** Some key was left out since the current generation began. */
  #leftOutInGeneration = false;

  constructor(options: NodeStoreOptions) {
    this.#options = options;
    this.#sweptBucket = bucketOf(options.nowMs);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Keys waiting in the expiry wheel (one per key with a TTL at most). */
  get slots(): number {
    let slots = this.#due.size;
    for (const bucket of this.#buckets.values()) slots += bucket.size;
    return slots;
  }

  /**
   * Some key was left out, the store being full (maxKeys): a lock may be held that the store does
   * not show. It stays so until a listing ends that left nothing out (endGeneration).
   */
  get truncated(): boolean {
    return this.#truncated;
  }

  get(key: string): IndexedState | undefined {
    return this.#entries.get(key);
  }

  keys(): IterableIterator<string> {
    return this.#entries.keys();
  }

  /** A listing begins: what it reads is stamped with a new generation. */
  beginGeneration(): void {
    this.#generation += 1;
    this.#leftOutInGeneration = false;
  }

  /** A listing ended: the store is whole again only if it left nothing out since it began. */
  endGeneration(): void {
    this.#truncated = this.#leftOutInGeneration;
  }

  /** Keys no read has stamped since the current generation began. */
  unseen(): string[] {
    const names: string[] = [];
    for (const [name, state] of this.#entries)
      if (state.generation < this.#generation) names.push(name);
    return names;
  }

  /** Stores what a read at `readAtMs` found under `name`. */
  put(name: string, read: NodeKeyState, readAtMs: number): void {
    const known = this.#entries.get(name);
    if (!known && this.#entries.size >= this.#options.maxKeys) {
      this.#truncated = true;
      this.#leftOutInGeneration = true;
      return;
    }
    const shared = this.#options.shared(name, read.value);
    const expiresAtMs = read.pttlMs < 0 ? -1 : readAtMs + read.pttlMs;
    const state = new StoredState(read, expiresAtMs, shared.value, this.#generation);
    // A key read again once due (a polled node's confirmation) had its slot taken: it goes back.
    const due = known !== undefined && isDue(known, readAtMs + CONFIRM_AHEAD_MS);
    if (!known || due || bucketOf(known.expiresAtMs) !== bucketOf(expiresAtMs)) {
      if (known) this.#unslot(shared.name, known);
      this.#slot(shared.name, expiresAtMs);
    }
    this.#entries.set(shared.name, state);
    this.#options.onChange(shared.name, state);
  }

  /** The node no longer holds `name`. */
  remove(name: string, cause: RemovalCause): void {
    const known = this.#entries.get(name);
    if (!known) return;
    this.#unslot(name, known);
    this.#entries.delete(name);
    this.#options.onChange(name, null, cause);
  }

  /**
   * Drops the states whose TTL ran out by `nowMs`: the node no longer holds them. With `confirm` (a
   * polled node), nothing is dropped: the keys due within CONFIRM_AHEAD_MS leave the wheel and are
   * handed to `confirm`, whose read puts them back (extended, or still counting down: due again next
   * sweep) or removes them. Until then the state stays as last read: between reads the console
   * cannot know more.
   */
  sweep(nowMs: number, confirm?: (names: string[]) => void): void {
    const horizonMs = confirm ? nowMs + CONFIRM_AHEAD_MS : nowMs;
    const due: string[] = [];
    const take = (name: string, slot: Set<string>) =>
      this.#takeIfDue(name, horizonMs, slot, confirm ? due : null);
    for (const name of this.#due) take(name, this.#due);
    const current = bucketOf(horizonMs);
    for (; this.#sweptBucket <= current; this.#sweptBucket += 1) {
      const keys = this.#buckets.get(this.#sweptBucket);
      if (!keys) continue;
      for (const name of keys) take(name, keys);
      if (keys.size === 0) this.#buckets.delete(this.#sweptBucket);
    }
    // Swept up to the current bucket, which may still fill: it is swept again next time.
    this.#sweptBucket = current;
    if (due.length > 0) confirm!(due);
  }

  /** Takes `name` off the wheel if due by `horizonMs`: expired, or named in `confirming`. */
  #takeIfDue(name: string, horizonMs: number, slot: Set<string>, confirming: string[] | null) {
    const state = this.#entries.get(name);
    if (state && state.expiresAtMs > horizonMs) return; // later in the current bucket
    slot.delete(name);
    if (!state || state.expiresAtMs < 0) return;
    if (confirming) return void confirming.push(name);
    this.#entries.delete(name);
    this.#options.onChange(name, null, "expired");
  }

  #slot(name: string, expiresAtMs: number): void {
    if (expiresAtMs < 0) return;
    const bucket = bucketOf(expiresAtMs);
    if (bucket < this.#sweptBucket) return void this.#due.add(name);
    const keys = this.#buckets.get(bucket);
    if (keys) keys.add(name);
    else this.#buckets.set(bucket, new Set([name]));
  }

  #unslot(name: string, known: IndexedState): void {
    if (known.expiresAtMs < 0) return;
    const bucket = bucketOf(known.expiresAtMs);
    const keys = this.#buckets.get(bucket);
    if (keys?.delete(name) && keys.size === 0) this.#buckets.delete(bucket);
    this.#due.delete(name);
  }
}
