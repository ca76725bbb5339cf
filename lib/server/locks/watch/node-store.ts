/**
 * What the index holds of one node (the informer's indexer): every lock key's state, and an expiry
 * wheel that drops a state when its TTL runs out, so a key that expires without a notification
 * reaching the console (or while the node is polled) still leaves the index on time.
 */
import type { NodeKeyState } from "../read/key-state";
import { StoredState, type IndexedState } from "./indexed-state";

export type { IndexedState } from "./indexed-state";

/** Why a node no longer holds a key: the keyspace event that removed it, or none seen. */
export type RemovalCause = "deleted" | "expired" | "evicted" | "unknown";

export interface NodeStoreOptions {
  /** Lock keys kept at most; beyond it new keys are left out and the store is `truncated`. */
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

export class NodeStore {
  readonly #options: NodeStoreOptions;
  readonly #entries = new Map<string, IndexedState>();
  /**
   * The wheel: bucket -> the keys that expire in it. A key with a TTL has exactly one slot: the
   * bucket of its expiry, or `#due` when that bucket was already swept (it expired meanwhile). An
   * extension or a removal moves or drops the slot, so keys extended a thousand times take one.
   */
  readonly #buckets = new Map<number, Set<string>>();
  readonly #due = new Set<string>();
  /** Buckets before it are swept (and gone); it and later ones still fill. */
  #sweptBucket: number;
  #generation = 0;
  #truncated = false;

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

  /** Some key was left out, the store being full (maxKeys). */
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
      return;
    }
    const shared = this.#options.shared(name, read.value);
    const expiresAtMs = read.pttlMs < 0 ? -1 : readAtMs + read.pttlMs;
    const state = new StoredState(read, expiresAtMs, shared.value, this.#generation);
    if (!known || bucketOf(known.expiresAtMs) !== bucketOf(expiresAtMs)) {
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

  /** Drops the states whose TTL ran out by `nowMs`: the node no longer holds them. */
  sweep(nowMs: number): void {
    for (const name of this.#due) this.#expireIfDue(name, nowMs, this.#due);
    const current = bucketOf(nowMs);
    for (; this.#sweptBucket <= current; this.#sweptBucket += 1) {
      const keys = this.#buckets.get(this.#sweptBucket);
      if (!keys) continue;
      for (const name of keys) this.#expireIfDue(name, nowMs, keys);
      if (keys.size === 0) this.#buckets.delete(this.#sweptBucket);
    }
    // Swept up to the current bucket, which may still fill: it is swept again next time.
    this.#sweptBucket = current;
  }

  #expireIfDue(name: string, nowMs: number, slot: Set<string>): void {
    const state = this.#entries.get(name);
    if (state && state.expiresAtMs > nowMs) return; // later in the current bucket
    slot.delete(name);
    if (!state) return;
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
