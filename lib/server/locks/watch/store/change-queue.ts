/**
 * The keys notifications named, waiting to be read (the informer's DeltaFIFO): a burst is coalesced
 * so each key is read once, in chunks, and what the events said (which removed a key, how many
 * values were written) is kept until the read that settles the key. More pending keys than the
 * budget can read are dropped for a relist instead: paced and bounded, whatever the write rate.
 */
import type { Clock } from "../io/clock";
import type { RemovalCause } from "./node-store";

/** Keys per read script call: one chunk runs well under a millisecond on the node. */
export const READ_CHUNK_KEYS = 256;
/** Notifications are gathered this long before their keys are read, so a burst reads each key once. */
const COALESCE_MS = 10;
/** Changed keys waiting to be read at most; beyond it the node is relisted instead. */
const MAX_PENDING_KEYS = 100_000;

/** Keyspace events that remove a key, and what they tell of its removal. */
const REMOVAL_EVENTS: ReadonlyMap<string, RemovalCause> = new Map([
  ["del", "deleted"],
  ["expired", "expired"],
  ["evicted", "evicted"],
]);

export interface ChangeQueueOptions {
  readonly clock: Clock;
  /** Aborts when the watch closes: the drain stops. */
  readonly signal: AbortSignal;
  /** Reads a chunk of changed keys (it waits for the budget). */
  readonly read: (keys: readonly Buffer[]) => Promise<unknown>;
  /** The queue dropped every change it held: the node must be relisted, for `reason`. */
  readonly onDropped: (reason: "overflow" | "reconnect") => void;
  /**
   * Changed keys waiting to be read at most; beyond it they are dropped for a relist.
   * @default 100_000
   */
  readonly maxPendingKeys?: number;
}

/** What the events for a key said since its last read. */
export interface KeyEvents {
  /** The event that removed the key, if one did. */
  readonly cause: RemovalCause | undefined;
  /** `set` events: values written, some of which the read will not see. */
  readonly sets: number;
}

export class ChangeQueue {
  readonly #options: ChangeQueueOptions;
  readonly #maxPendingKeys: number;
  /** Latin1 name -> the key's bytes, in arrival order. */
  readonly #pending = new Map<string, Buffer>();
  readonly #removals = new Map<string, RemovalCause>();
  readonly #sets = new Map<string, number>();
  #cancelDrain: (() => void) | undefined;
  #draining = false;
  #idleWaiters: Array<() => void> = [];

  constructor(options: ChangeQueueOptions) {
    this.#options = options;
    this.#maxPendingKeys = options.maxPendingKeys ?? MAX_PENDING_KEYS;
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Whether a read of `name` waits: its later notifications must be kept, whatever they are. */
  has(name: string): boolean {
    return this.#pending.has(name);
  }

  /** A notification named `name` (`event`: the keyspace event, null when it does not count). */
  add(name: string, key: Buffer, event: string | null): void {
    const cause = event === null ? undefined : REMOVAL_EVENTS.get(event);
    if (cause) this.#removals.set(name, cause);
    else if (event === "set") this.#sets.set(name, (this.#sets.get(name) ?? 0) + 1);
    if (this.#pending.size >= this.#maxPendingKeys) {
      // More changes than the budget can read: drop them and relist instead (paced, bounded).
      this.#drop("overflow");
      return;
    }
    this.#pending.set(name, key);
    this.#cancelDrain ??= this.#options.clock.after(COALESCE_MS, () => void this.#drain());
  }

  /** What the events said of `name` since its last read; forgotten once taken. */
  takeEvents(name: string): KeyEvents {
    const cause = this.#removals.get(name);
    if (cause) this.#removals.delete(name);
    const sets = this.#sets.get(name) ?? 0;
    if (sets > 0) this.#sets.delete(name);
    return { cause, sets };
  }

  /** Resolves once every key added before the call has been read. */
  idle(): Promise<void> {
    if (this.#pending.size === 0 && !this.#draining && this.#cancelDrain === undefined)
      return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  close(): void {
    this.#cancelDrain?.();
  }

  /** Reads the changed keys, a chunk at a time. */
  async #drain(): Promise<void> {
    this.#cancelDrain = undefined;
    if (this.#draining) return;
    this.#draining = true;
    try {
      while (this.#pending.size > 0 && !this.#options.signal.aborted) {
        const chunk: Buffer[] = [];
        for (const [name, key] of this.#pending) {
          this.#pending.delete(name);
          chunk.push(key);
          if (chunk.length >= READ_CHUNK_KEYS) break;
        }
        await this.#options.read(chunk);
      }
    } catch {
      // The node failed mid-read: it is relisted when it answers again.
      this.#drop("reconnect");
    } finally {
      this.#draining = false;
      if (this.#pending.size === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
    }
  }

  /** Forgets the changes waiting to be read, and what their events said. */
  #drop(reason: "overflow" | "reconnect"): void {
    this.#pending.clear();
    this.#removals.clear();
    this.#sets.clear();
    this.#options.onDropped(reason);
  }
}

/**
 * What a read found under a key: a lock's value, a value that is no lock (an application's), or
 * nothing (the key is gone).
 */
export type KeyFound = { readonly value: string } | "not-a-lock" | null;

/**
 * Values written under a key that came and went before its read: each `set` wrote one, and the
 * read saw at most the last. The same value as before is a SET-based extension, not a new hold. A
 * value that is no lock at the read means the sets were the application's (a cache write): none
 * was a lock, as far as the console can tell.
 */
export function briefHolds(sets: number, found: KeyFound, knownValue: string | undefined): number {
  if (found === null) return sets;
  if (found === "not-a-lock") return 0;
  return found.value !== knownValue && sets > 1 ? sets - 1 : 0;
}
