/**
 * What the console has learned of one node's key shapes (key-shape.ts), and the rule that follows
 * from it: with notifications on, a changed key is read only when it may be a lock. A key the index
 * holds (or is about to read) is always read; an event that cannot leave a lock (a removal, a list
 * write…) is not; a shape read `minReadsToSkip` times that never held a lock is skipped, save its
 * samples: every key of it that an event gives an expiry (`expire`: `SET … PX`, `PEXPIRE`…; a lock
 * always has one) is read, up to `sampleReadsPerS` such reads per second per node, and one changed
 * key per `probeIntervalMs` whatever its event. So a lock taken under a skipped shape is read when
 * its own event arrives (not when a 1-in-N sample happens to pick it), and what goes unread beyond
 * the bound is counted (`unsampledPerS`): the node card and the list say when it may show late.
 * Any read that finds a lock under a shape — a sample, a
 * listing, the periodic resync — makes it a lock shape, read on every notification again at once.
 * The table is capped: shapes beyond it are always read, and idle ones are pruned.
 */
import type { KeyShapeFigures } from "@/lib/api";
import { eventMayCreateLock, eventMaySetExpiry, keyShape } from "./key-shape";
import { RateWindow } from "../io/rate-window";
import { DEFAULT_SAMPLE_READS_PER_S } from "../../../config";

/** Rates are taken over this window. */
const RATE_WINDOW_MS = 10_000;
/** A shape without a lock unseen this long may be forgotten when the table is full. */
const IDLE_SHAPE_MS = 10 * 60_000;
/** The table is swept for idle shapes at most this often. */
const PRUNE_EVERY_MS = 60_000;
/** Figures listed per kind in a summary. */
const LISTED_SHAPES = 20;

export interface ShapeTableOptions {
  readonly nowMs: () => number;
  /**
   * Reads without a lock after which a shape is skipped on notifications.
   * @default 1_000
   */
  readonly minReadsToSkip?: number;
  /**
   * A skipped shape still has one changed key read this often, in ms: a shape that starts holding
   * locks shows within about this long if its keys change.
   * @default 1_000
   */
  readonly probeIntervalMs?: number;
  /**
   * Keys of skipped shapes given an expiry (a lock has one) read per second at most on this node;
   * 0: none, a lock under a skipped shape waits for a probe or the resync. @default 500
   */
  readonly sampleReadsPerS?: number;
  /** @default 1_000 */
  readonly maxShapes?: number;
}

/** One shape's figures (exported for the suggestion: lock-match-hint.ts). */
export interface ShapeEntry {
  readonly shape: string;
  /** A key of this shape, to test patterns against. */
  readonly example: string;
  reads: number;
  locksFound: number;
  lastProbeMs: number;
  lastSeenMs: number;
  readonly notified: RateWindow;
  readonly read: RateWindow;
  readonly avoided: RateWindow;
}

export class ShapeTable {
  readonly #nowMs: () => number;
  readonly #minReadsToSkip: number;
  readonly #probeIntervalMs: number;
  readonly #maxShapes: number;
  readonly #shapes = new Map<string, ShapeEntry>();
  readonly #untracked: RateWindow;
  readonly #sampleReadsPerS: number;
  /** Expiry samples read, and those left unread beyond the bound. */
  readonly #sampled: RateWindow;
  readonly #unsampled: RateWindow;
  /** The current second's expiry samples (the bound is per wall-clock second of `nowMs`). */
  #sampleSecond = -1;
  #samplesThisSecond = 0;
  #prunedAtMs: number;

  constructor(options: ShapeTableOptions) {
    this.#nowMs = options.nowMs;
    this.#minReadsToSkip = options.minReadsToSkip ?? 1_000;
    this.#probeIntervalMs = options.probeIntervalMs ?? 1_000;
    this.#maxShapes = options.maxShapes ?? 1_000;
    this.#prunedAtMs = this.#nowMs();
    this.#untracked = new RateWindow(RATE_WINDOW_MS, this.#prunedAtMs);
    this.#sampleReadsPerS = options.sampleReadsPerS ?? DEFAULT_SAMPLE_READS_PER_S;
    this.#sampled = new RateWindow(RATE_WINDOW_MS, this.#prunedAtMs);
    this.#unsampled = new RateWindow(RATE_WINDOW_MS, this.#prunedAtMs);
  }

  /**
   * Whether a notification for `name` should make the console read it. `held`: the index holds the
   * key or a read of it is pending (its removal or change must be seen whatever its shape).
   */
  shouldRead(name: string, event: string, held: boolean): boolean {
    const nowMs = this.#nowMs();
    const entry = this.#entry(name, nowMs);
    if (!entry) {
      this.#untracked.add(nowMs);
      return true;
    }
    entry.notified.add(nowMs);
    const read =
      held ||
      (eventMayCreateLock(event) &&
        (!this.#skips(entry) || this.#expirySample(event, nowMs) || this.#probe(entry, nowMs)));
    (read ? entry.read : entry.avoided).add(nowMs);
    return read;
  }

  /** A skipped shape's key given an expiry: read while this second's samples last. */
  #expirySample(event: string, nowMs: number): boolean {
    if (!eventMaySetExpiry(event)) return false;
    const second = Math.floor(nowMs / 1_000);
    if (second !== this.#sampleSecond) {
      this.#sampleSecond = second;
      this.#samplesThisSecond = 0;
    }
    if (this.#samplesThisSecond >= this.#sampleReadsPerS) {
      this.#unsampled.add(nowMs);
      return false;
    }
    this.#samplesThisSecond += 1;
    this.#sampled.add(nowMs);
    return true;
  }

  /** What a read of `name` found (a notification's or a listing's): a lock or not. */
  recordRead(name: string, isLock: boolean): void {
    const entry = this.#entry(name, this.#nowMs());
    if (!entry) return;
    entry.reads += 1;
    if (isLock) entry.locksFound += 1;
  }

  /** Whether keys of `name`'s shape are skipped on notifications now. */
  skipped(name: string): boolean {
    const entry = this.#shapes.get(keyShape(name));
    return entry !== undefined && this.#skips(entry);
  }

  get size(): number {
    return this.#shapes.size;
  }

  entries(): IterableIterator<ShapeEntry> {
    return this.#shapes.values();
  }

  /** Shapes skipped and shapes that held locks, each the most costly first (at most 20 each). */
  summary() {
    const nowMs = this.#nowMs();
    let readsPerS = 0;
    let readsAvoidedPerS = 0;
    const skipped: KeyShapeFigures[] = [];
    const locks: KeyShapeFigures[] = [];
    for (const entry of this.#shapes.values()) {
      const figures = figuresOf(entry, nowMs);
      readsPerS += entry.read.perS(nowMs);
      readsAvoidedPerS += figures.readsAvoidedPerS;
      if (entry.locksFound > 0) locks.push(figures);
      else if (this.#skips(entry)) skipped.push(figures);
    }
    const untrackedReadsPerS = this.#untracked.perS(nowMs);
    return {
      readsPerS: readsPerS + untrackedReadsPerS,
      readsAvoidedPerS,
      shapesTracked: this.#shapes.size,
      untrackedReadsPerS,
      skippedShapes: top(skipped, (figures) => figures.readsAvoidedPerS),
      skippedShapeCount: skipped.length,
      lockShapes: top(locks, (figures) => figures.notificationsPerS),
      expirySamples: {
        readsPerS: this.#sampled.perS(nowMs),
        readsPerSMax: this.#sampleReadsPerS,
        unreadPerS: this.#unsampled.perS(nowMs),
      },
    };
  }

  #skips(entry: ShapeEntry): boolean {
    return entry.locksFound === 0 && entry.reads >= this.#minReadsToSkip;
  }

  /** A skipped shape's sample: true at most once per probe interval. */
  #probe(entry: ShapeEntry, nowMs: number): boolean {
    if (nowMs - entry.lastProbeMs < this.#probeIntervalMs) return false;
    entry.lastProbeMs = nowMs;
    return true;
  }

  /** The entry of `name`'s shape, made when there is room; undefined when the table is full. */
  #entry(name: string, nowMs: number): ShapeEntry | undefined {
    const shape = keyShape(name);
    let entry = this.#shapes.get(shape);
    if (!entry) {
      if (this.#shapes.size >= this.#maxShapes && !this.#pruned(nowMs)) return undefined;
      entry = newEntry(shape, name, nowMs);
      this.#shapes.set(shape, entry);
    }
    entry.lastSeenMs = nowMs;
    return entry;
  }

  /** Forgets shapes without a lock unseen for a while; true when it made room. */
  #pruned(nowMs: number): boolean {
    if (nowMs - this.#prunedAtMs < PRUNE_EVERY_MS) return false;
    this.#prunedAtMs = nowMs;
    for (const [shape, entry] of this.#shapes)
      if (entry.locksFound === 0 && nowMs - entry.lastSeenMs > IDLE_SHAPE_MS)
        this.#shapes.delete(shape);
    return this.#shapes.size < this.#maxShapes;
  }
}

function newEntry(shape: string, example: string, nowMs: number): ShapeEntry {
  return {
    shape,
    example: example.slice(0, 200),
    reads: 0,
    locksFound: 0,
    lastProbeMs: nowMs,
    lastSeenMs: nowMs,
    notified: new RateWindow(RATE_WINDOW_MS, nowMs),
    read: new RateWindow(RATE_WINDOW_MS, nowMs),
    avoided: new RateWindow(RATE_WINDOW_MS, nowMs),
  };
}

export function figuresOf(entry: ShapeEntry, nowMs: number): KeyShapeFigures {
  return {
    shape: entry.shape,
    reads: entry.reads,
    locksFound: entry.locksFound,
    notificationsPerS: entry.notified.perS(nowMs),
    readsAvoidedPerS: entry.avoided.perS(nowMs),
  };
}

const top = <T>(items: T[], cost: (item: T) => number) =>
  items.sort((a, b) => cost(b) - cost(a)).slice(0, LISTED_SHAPES);
