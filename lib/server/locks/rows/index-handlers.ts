/**
 * The live index's registered handlers (client-go's AddEventHandler): each handler has a queue of
 * its own, filled inside the watch's change callback (a push, nothing else) and drained off that
 * call stack, in slices of DRAIN_SLICE_MS that end with a `setImmediate`, so the watches' replies
 * are read between two slices: a slow handler lags behind the index, it never delays it.
 *
 * Backpressure, per handler, by the queue it asks for:
 * - "ordered" (the timeline): every change, gap, brief hold and tick in the order they happened, at
 *   most `maxQueued`. A push onto a full queue drops everything queued and the handler hears, once,
 *   `gap(sinceMs)` dated at the oldest change it lost: the same "changes since then are unknown"
 *   a relisted node gives, which the timeline already answers by re-reading its holds from the index.
 * - "coalesced" (contention, ownership figures): one pending change per key, the latest, with the
 *   facts from before the first one it replaced, so a running total stays exact; ticks fold into
 *   one. Bounded by the number of keys, it drops nothing and needs no gap. Brief holds are not
 *   delivered there (they are events, not state).
 * A handler that throws is logged and goes on with the next event.
 */
import type { LockState } from "@/lib/api";
import { logger } from "../../logger";
import type { IndexedState, RemovalCause } from "../watch/store/node-store";
import type { RowFacts } from "./ownership-figures";

/** Per node, in node order: its state, null (absent) or undefined (unreachable). */
export type Reads = ReadonlyArray<IndexedState | null | undefined>;

/** One key changed on one node (nodeIndex -1: every row re-folded, a node came or went). */
export interface IndexChange {
  readonly key: string;
  /** Every node's state after the change. */
  readonly reads: Reads;
  /** The row's state after the change (null: no node holds the key). */
  readonly state: LockState | null;
  readonly nodeIndex: number;
  /** Why the node lost the key, when it did. */
  readonly cause: RemovalCause | undefined;
  /** The row's metric facts before and after (ownership-figures.ts). */
  readonly factsBefore: RowFacts | null;
  readonly factsAfter: RowFacts | null;
  /** When the index applied it (epoch ms): a handler that lags still dates it right. */
  readonly atMs: number;
  /** The index's count of changes with this one (LiveIndex.changeCount then). */
  readonly seq: number;
  /** Whether the index was whole with this change (LiveIndex.complete then). */
  readonly complete: boolean;
}

/** What a handler hears; each method is optional. */
export interface IndexHandler {
  change?(change: IndexChange): void;
  /** A node's changes (or, for an ordered queue, this handler's) since `sinceMs` may be missed. */
  gap?(sinceMs: number): void;
  /** `holds` values came and went on the node between two reads of `key`. */
  brief?(key: string, nodeIndex: number, holds: number, atMs: number): void;
  /** About every 100 ms, with the index's sweep; `complete`: LiveIndex.complete then. */
  tick?(nowMs: number, complete: boolean): void;
}

export interface HandlerOptions {
  /** @default "ordered" */
  readonly queue?: "ordered" | "coalesced";
  /** An ordered queue's bound (see the file comment). @default DEFAULT_MAX_QUEUED */
  readonly maxQueued?: number;
}

export interface HandlerRegistration {
  /** True once the handler has caught up with a whole index (every reachable node listed); stays true. */
  hasSynced(): boolean;
  /** Resolves the next time the handler's queue is empty. */
  drained(): Promise<void>;
  /** Changes dropped by an ordered queue's overflow, in all. */
  readonly dropped: number;
  /** Stops the deliveries; what is queued is dropped. */
  remove(): void;
}

export const DEFAULT_MAX_QUEUED = 50_000;
/** How long one drain delivers before yielding to I/O. */
const DRAIN_SLICE_MS = 5;
/** Delivered events kept at the head of an ordered queue before it is compacted. */
const COMPACT_AFTER = 4_096;

export type IndexEvent =
  | { readonly kind: "change"; readonly change: IndexChange }
  | { readonly kind: "gap"; readonly sinceMs: number }
  | {
      readonly kind: "brief";
      readonly key: string;
      readonly nodeIndex: number;
      readonly holds: number;
      readonly atMs: number;
    }
  | { readonly kind: "tick"; readonly atMs: number; readonly complete: boolean };

const atOf = (event: IndexEvent) =>
  event.kind === "change" ? event.change.atMs : event.kind === "gap" ? event.sinceMs : event.atMs;

/** One handler's queue and drain (see the file comment). */
export class HandlerQueue implements HandlerRegistration {
  readonly #handler: IndexHandler;
  readonly #coalesced: boolean;
  readonly #maxQueued: number;
  readonly #isComplete: () => boolean;
  readonly #onRemove: () => void;
  #ordered: IndexEvent[] = [];
  #head = 0;
  readonly #byKey = new Map<string, IndexChange>();
  #pendingGapMs: number | null = null;
  #pendingTick: (IndexEvent & { kind: "tick" }) | null = null;
  #scheduled: NodeJS.Immediate | null = null;
  #waiters: Array<() => void> = [];
  #synced = false;
  #removed = false;
  dropped = 0;

  constructor(
    handler: IndexHandler,
    options: HandlerOptions,
    isComplete: () => boolean,
    onRemove: () => void,
  ) {
    this.#handler = handler;
    this.#coalesced = options.queue === "coalesced";
    this.#maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
    this.#isComplete = isComplete;
    this.#onRemove = onRemove;
  }

  push(event: IndexEvent): void {
    if (this.#removed) return;
    if (this.#coalesced) this.#coalesce(event);
    else if (this.#ordered.length - this.#head < this.#maxQueued) this.#ordered.push(event);
    else this.#overflow(event);
    this.#scheduled ??= setImmediate(() => this.#drain());
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  drained(): Promise<void> {
    if (this.#empty) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  remove(): void {
    this.#removed = true;
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = null;
    this.#clear();
    this.#settle();
    this.#onRemove();
  }

  get #empty(): boolean {
    return (
      this.#head === this.#ordered.length &&
      this.#byKey.size === 0 &&
      this.#pendingGapMs === null &&
      this.#pendingTick === null
    );
  }

  #coalesce(event: IndexEvent): void {
    if (event.kind === "tick") this.#pendingTick = event;
    else if (event.kind === "gap")
      this.#pendingGapMs = Math.min(this.#pendingGapMs ?? event.sinceMs, event.sinceMs);
    else if (event.kind === "change") {
      const { change } = event;
      const first = this.#byKey.get(change.key);
      // Re-inserted last: keys are delivered in the order of their latest change.
      this.#byKey.delete(change.key);
      this.#byKey.set(change.key, first ? { ...change, factsBefore: first.factsBefore } : change);
    }
  }

  /** Full: what is queued is dropped, and the handler hears a gap from the oldest change it lost. */
  #overflow(event: IndexEvent): void {
    const oldest = this.#ordered[this.#head] ?? event;
    const sinceMs = Math.min(atOf(oldest), this.#pendingGapMs ?? Number.POSITIVE_INFINITY);
    this.dropped += this.#ordered.length - this.#head + 1;
    this.#clear();
    this.#pendingGapMs = sinceMs;
  }

  #clearOrdered(): void {
    this.#ordered = [];
    this.#head = 0;
  }

  #clear(): void {
    this.#clearOrdered();
    this.#byKey.clear();
    this.#pendingGapMs = null;
    this.#pendingTick = null;
  }

  #drain(): void {
    this.#scheduled = null;
    const until = performance.now() + DRAIN_SLICE_MS;
    do {
      const event = this.#next();
      if (!event) break;
      this.#deliver(event);
    } while (!this.#removed && performance.now() < until);
    if (this.#removed) return;
    if (!this.#empty) {
      this.#scheduled = setImmediate(() => this.#drain());
      return;
    }
    if (this.#isComplete()) this.#synced = true;
    this.#settle();
  }

  #next(): IndexEvent | undefined {
    if (this.#pendingGapMs !== null) {
      const sinceMs = this.#pendingGapMs;
      this.#pendingGapMs = null;
      return { kind: "gap", sinceMs };
    }
    if (this.#head < this.#ordered.length) {
      const event = this.#ordered[this.#head++]!;
      if (this.#head === this.#ordered.length) this.#clearOrdered();
      else if (this.#head >= COMPACT_AFTER) {
        // A handler that never catches up: the delivered head is cut off now and then.
        this.#ordered = this.#ordered.slice(this.#head);
        this.#head = 0;
      }
      return event;
    }
    const first = this.#byKey.entries().next();
    if (!first.done) {
      this.#byKey.delete(first.value[0]);
      return { kind: "change", change: first.value[1] };
    }
    const tick = this.#pendingTick;
    this.#pendingTick = null;
    return tick ?? undefined;
  }

  #deliver(event: IndexEvent): void {
    const handler = this.#handler;
    try {
      if (event.kind === "change") handler.change?.(event.change);
      else if (event.kind === "gap") handler.gap?.(event.sinceMs);
      else if (event.kind === "brief")
        handler.brief?.(event.key, event.nodeIndex, event.holds, event.atMs);
      else handler.tick?.(event.atMs, event.complete);
    } catch (error) {
      logger.error({ error: String(error), event: event.kind }, "index handler failed");
    }
  }

  #settle(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}
