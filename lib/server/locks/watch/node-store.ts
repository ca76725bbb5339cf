/**
 * What the index holds of one node (the informer's indexer): every lock key's state, and an expiry
 * wheel that drops a state when its TTL runs out, so a key that expires without a notification
 * reaching the console still leaves the index on time. A polled node has no notifications to say
 * the key was extended meanwhile: there the wheel only names the keys to read again, shortly before
 * and at their expiry, and the read decides (an extension, a release, or an expiry confirmed).
 */
import type { LockFormat, OwnerInfo, WaitersSummary } from "@/lib/api";
import type { NodeKeyState } from "../read/key-state";
import type { ValueCut } from "../read/read-key";
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
    /**
     * An owner `value` alone does not give: a 1.x owner entry that belongs to it, or the owner the
     * node decoded from a value it cut (read-key.ts); null otherwise (2.x carries it in the value).
     */
    readonly legacyOwner: OwnerInfo | null,
    /** When the holder acquired (its owner's acquiredAt), for the metrics; null when unknown. */
    readonly acquiredAtMs: number | null,
    /** Live waiters; null when none. */
    readonly waiters: WaitersSummary | null,
    /** The listing generation that last saw the key: older ones are swept when a listing ends. */
    public generation: number,
    /** Present when `value` is the first bytes of a longer value: its size and digest. */
    readonly cut: ValueCut | null = null,
    /** Live waiter entries, each whole (the wait-for graph, contention/); null when none. */
    readonly waiterList?: readonly WaiterRef[] | null,
  ) {}
}

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

/** Expiries are kept in buckets of this many ms (a timer wheel: one array slot per key). */
const EXPIRY_BUCKET_MS = 100;
/**
 * A polled node's key is read again from this long before its expiry, every sweep, until a read
 * finds it extended or gone: a release in that stretch is still seen before the expiry (the library
 * extends 500 ms before, so an extension is usually found by the first read).
 */
export const CONFIRM_AHEAD_MS = 300;

export class NodeStore {
  readonly #options: NodeStoreOptions;
  readonly #entries = new Map<string, IndexedState>();
  /** Bucket (expiry ms / EXPIRY_BUCKET_MS) -> keys that expire in it, or did when put there. */
  readonly #expiries = new Map<number, string[]>();
  #sweptBucket: number;
  #generation = 0;
  #truncated = false;
  /** Some key was left out since the current generation began. */
  #leftOutInGeneration = false;

  constructor(options: NodeStoreOptions) {
    this.#options = options;
    this.#sweptBucket = Math.floor(options.nowMs / EXPIRY_BUCKET_MS);
  }

  get size(): number {
    return this.#entries.size;
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
    const state = new IndexedState(
      shared.value,
      expiresAtMs,
      read.format,
      read.holdCount,
      read.owner && (read.owner.extensions !== null || read.cut) ? read.owner : null,
      read.owner?.acquiredAt ?? null,
      read.waiters && read.waiters.count > 0 ? read.waiters : null,
      this.#generation,
      read.cut ?? null,
      read.waiterList ?? null,
    );
    // A key's bucket only moves later while it is held (extensions): an earlier entry just finds it alive.
    // A key read again once due (a polled node's confirmation) goes back on the wheel.
    const due =
      known !== undefined &&
      known.expiresAtMs >= 0 &&
      known.expiresAtMs <= readAtMs + CONFIRM_AHEAD_MS;
    if (expiresAtMs >= 0 && (expiresAtMs !== known?.expiresAtMs || due))
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

  /**
   * Drops the states whose TTL ran out by `nowMs`: the node no longer holds them. With `confirm` (a
   * polled node), nothing is dropped: the keys due within CONFIRM_AHEAD_MS are handed to `confirm`,
   * whose read puts them back (extended, or still counting down: due again next sweep) or removes
   * them. Until then the state stays as last read: between reads the console cannot know more.
   */
  sweep(nowMs: number, confirm?: (names: string[]) => void): void {
    const horizonMs = confirm ? nowMs + CONFIRM_AHEAD_MS : nowMs;
    const current = Math.floor(horizonMs / EXPIRY_BUCKET_MS);
    const due: string[] = [];
    for (; this.#sweptBucket <= current; this.#sweptBucket += 1) {
      const keys = this.#expiries.get(this.#sweptBucket);
      if (!keys) continue;
      this.#expiries.delete(this.#sweptBucket);
      for (const name of keys) {
        const state = this.#entries.get(name);
        if (!state || state.expiresAtMs < 0) continue;
        if (state.expiresAtMs <= horizonMs) {
          if (confirm) due.push(name);
          else this.#expire(name);
        } else if (Math.floor(state.expiresAtMs / EXPIRY_BUCKET_MS) <= current) {
          this.#expireAt(current + 1, name); // later in the bucket being swept: look again next time
        }
      }
    }
    // Swept up to the current bucket, which may still fill: it is swept again next time.
    this.#sweptBucket = current;
    if (due.length > 0) confirm!(due);
  }

  #expire(name: string): void {
    this.#entries.delete(name);
    this.#options.onChange(name, null, "expired");
  }

  #expireAt(bucket: number, name: string): void {
    const keys = this.#expiries.get(bucket);
    if (keys) keys.push(name);
    else this.#expiries.set(bucket, [name]);
  }
}
