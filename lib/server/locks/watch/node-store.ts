/**
 * What the index holds of one node (the informer's indexer): every lock key's state, and an expiry
 * wheel that drops a state when its TTL runs out, so a key that expires without a notification
 * reaching the console (or while the node is polled) still leaves the index on time.
 */
import type { LockFormat, OwnerInfo, WaitersSummary } from "@/lib/api";
import type { NodeKeyState } from "../read/key-state";
import type { WaiterRef } from "../read/waiter-list";

/**
 * What a node holds under a key, with its expiry as an instant on the console's clock. Compact, as
 * there is one per lock per node (500,000 at 100k locks on five nodes): a 2.x owner is decoded from
 * the value only when a row is shown; no waiters is null, not an object.
 */
export class IndexedState {
  constructor(
    readonly value: string,
    /** When the key expires (console clock, epoch ms); -1: it has no TTL. */
    readonly expiresAtMs: number,
    readonly format: LockFormat,
    readonly holdCount: number | null,
    /** A 1.x owner entry that belongs to `value`; null otherwise (2.x carries its owner in the value). */
    readonly legacyOwner: OwnerInfo | null,
    /** When the holder acquired (its owner's acquiredAt), for the metrics; null when unknown. */
    readonly acquiredAtMs: number | null,
    /** Live waiters; null when none. */
    readonly waiters: WaitersSummary | null,
    /** The listing generation that last saw the key: older ones are swept when a listing ends. */
    public generation: number,
    /** Live waiter entries, each whole (the wait-for graph, contention/); null when none. */
    readonly waiterList?: readonly WaiterRef[] | null,
  ) {}
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

/** Expiries are kept in buckets of this many ms (a timer wheel: one array slot per key). */
const EXPIRY_BUCKET_MS = 100;

export class NodeStore {
  readonly #options: NodeStoreOptions;
  readonly #entries = new Map<string, IndexedState>();
  /** Bucket (expiry ms / EXPIRY_BUCKET_MS) -> keys that expire in it, or did when put there. */
  readonly #expiries = new Map<number, string[]>();
  #sweptBucket: number;
  #generation = 0;
  #truncated = false;

  constructor(options: NodeStoreOptions) {
    this.#options = options;
    this.#sweptBucket = Math.floor(options.nowMs / EXPIRY_BUCKET_MS);
  }

  get size(): number {
    return this.#entries.size;
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
    const state = new IndexedState(
      shared.value,
      expiresAtMs,
      read.format,
      read.holdCount,
      read.owner && read.owner.extensions !== null ? read.owner : null,
      read.owner?.acquiredAt ?? null,
      read.waiters && read.waiters.count > 0 ? read.waiters : null,
      this.#generation,
      read.waiterList ?? null,
    );
    // A key's bucket only moves later while it is held (extensions): an earlier entry just finds it alive.
    if (expiresAtMs >= 0 && expiresAtMs !== known?.expiresAtMs)
      this.#expireAt(
        Math.max(this.#sweptBucket, Math.floor(expiresAtMs / EXPIRY_BUCKET_MS)),
        shared.name,
      );
    this.#entries.set(shared.name, state);
    this.#options.onChange(shared.name, state);
  }

  /** The node no longer holds `name`. */
  remove(name: string, cause: RemovalCause): void {
    if (this.#entries.delete(name)) this.#options.onChange(name, null, cause);
  }

  /** Drops the states whose TTL ran out by `nowMs`: the node no longer holds them. */
  sweep(nowMs: number): void {
    const current = Math.floor(nowMs / EXPIRY_BUCKET_MS);
    for (; this.#sweptBucket <= current; this.#sweptBucket += 1) {
      const keys = this.#expiries.get(this.#sweptBucket);
      if (!keys) continue;
      this.#expiries.delete(this.#sweptBucket);
      for (const name of keys) {
        const state = this.#entries.get(name);
        if (!state || state.expiresAtMs < 0) continue;
        if (state.expiresAtMs <= nowMs) {
          this.#entries.delete(name);
          this.#options.onChange(name, null, "expired");
        } else if (Math.floor(state.expiresAtMs / EXPIRY_BUCKET_MS) <= current) {
          this.#expireAt(current + 1, name); // later in the bucket being swept: look again next time
        }
      }
    }
    // Swept up to the current bucket, which may still fill: it is swept again next time.
    this.#sweptBucket = current;
  }

  #expireAt(bucket: number, name: string): void {
    const keys = this.#expiries.get(bucket);
    if (keys) keys.push(name);
    else this.#expiries.set(bucket, [name]);
  }
}
