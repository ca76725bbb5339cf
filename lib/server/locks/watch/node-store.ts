/**
 * What the index holds of one node (the informer's indexer): every lock key's state, and an expiry
 * wheel that drops a state when its TTL runs out, so a key that expires without a notification
 * reaching the console (or while the node is polled) still leaves the index on time.
 */
import type { LockFormat, OwnerInfo, WaitersSummary } from "@/lib/api";
import type { NodeKeyState } from "../read/key-state";

/**
 * Instants are kept as ms after this one: small integers, which V8 stores inside the object, where
 * an epoch ms (beyond 2^31) takes a 16-byte heap box of its own per field. Past ~24 days of uptime
 * they are boxed again: same values, more bytes.
 */
const BASE_MS = Date.now();
const sinceBase = (epochMs: number | null) => (epochMs === null ? null : epochMs - BASE_MS);
const fromBase = (offsetMs: number | null) => (offsetMs === null ? null : offsetMs + BASE_MS);

/** What few locks have (a Redisson count, a 1.x owner entry, waiters), kept apart from the rest. */
interface RareFields {
  readonly holdCount: number | null;
  readonly legacyOwner: OwnerInfo | null;
  readonly waiters: WaitersSummary | null;
}

/** What a node holds under a key, with its expiry as an instant on the console's clock. */
export interface IndexedState {
  readonly value: string;
  /** When the key expires (console clock, epoch ms); -1: it has no TTL. */
  readonly expiresAtMs: number;
  readonly format: LockFormat;
  readonly holdCount: number | null;
  /** A 1.x owner entry that belongs to `value`; null otherwise (2.x carries its owner in the value). */
  readonly legacyOwner: OwnerInfo | null;
  /** When the holder acquired (its owner's acquiredAt), for the metrics; null when unknown. */
  readonly acquiredAtMs: number | null;
  /** Live waiters; null when none. */
  readonly waiters: WaitersSummary | null;
  /** The listing generation that last saw the key: older ones are swept when a listing ends. */
  readonly generation: number;
}

/**
 * The store's IndexedState, compact as there is one per lock per node (500,000 at 100k locks on
 * five nodes; 72 bytes each, 104 before): a 2.x owner is decoded from the value only when a row is
 * shown; the rare fields share one object, null for most locks.
 */
class StoredState implements IndexedState {
  readonly value: string;
  readonly format: LockFormat;
  readonly generation: number;
  /** expiresAtMs after BASE_MS; null: no TTL. */
  readonly #expiresAt: number | null;
  /** acquiredAtMs after BASE_MS, or null. */
  readonly #acquiredAt: number | null;
  readonly #rare: RareFields | null;

  constructor(read: NodeKeyState, expiresAtMs: number, value: string, generation: number) {
    this.value = value;
    this.format = read.format;
    this.generation = generation;
    this.#expiresAt = expiresAtMs < 0 ? null : sinceBase(expiresAtMs);
    this.#acquiredAt = sinceBase(read.owner?.acquiredAt ?? null);
    const legacyOwner = read.owner && read.owner.extensions !== null ? read.owner : null;
    const waiters = read.waiters && read.waiters.count > 0 ? read.waiters : null;
    this.#rare =
      read.holdCount === null && legacyOwner === null && waiters === null
        ? null
        : { holdCount: read.holdCount, legacyOwner, waiters };
  }

  get expiresAtMs(): number {
    return fromBase(this.#expiresAt) ?? -1;
  }

  get acquiredAtMs(): number | null {
    return fromBase(this.#acquiredAt);
  }

  get holdCount(): number | null {
    return this.#rare?.holdCount ?? null;
  }

  get legacyOwner(): OwnerInfo | null {
    return this.#rare?.legacyOwner ?? null;
  }

  get waiters(): WaitersSummary | null {
    return this.#rare?.waiters ?? null;
  }
}

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
