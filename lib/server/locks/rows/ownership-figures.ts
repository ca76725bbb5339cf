/**
 * Ownership figures for the metrics, kept as rows change rather than walked per scrape: a row's
 * facts (since when it is held, whether it never expires, its waiters) are taken from its reads
 * when the index updates it, and added to running totals; a scrape then costs O(log rows) plus the
 * rows that crossed a "long held / long wait" threshold since the last one. At 100k locks × 5
 * nodes a walk of every row took ~0.6 s, and ten scrapers in one tick stalled the server seconds.
 */
import type { LockState } from "@/lib/api";
import { BTree } from "./btree";
import type { IndexedState } from "../watch/store/node-store";
import { waitersOf } from "./quorum";

export interface OwnershipFigures {
  oldestAgeS: number;
  longHeld: number;
  noTtl: number;
  waiters: number;
  oldestWaitS: number;
  longWaits: number;
}

export interface FigureLimits {
  readonly longHeldMs: number;
  readonly longWaitMs: number;
  readonly quorumSize: number;
}

/** What one row adds to the figures; null when nothing (most rows of a plain lock). */
export interface RowFacts {
  /** The holder's acquisition (the first node whose owner says), epoch ms. */
  readonly heldSinceMs: number | null;
  /** At least a quorum of nodes hold the key without a TTL. */
  readonly noTtl: boolean;
  readonly waiting: number;
  /** The oldest waiter's arrival, epoch ms. */
  readonly waitSinceMs: number | null;
}

/** A row's state, with its metric facts when it has any (most plain locks have none). */
export type RowEntry = LockState | (RowFacts & { readonly state: LockState });

/**
 * A row's entry, written out rather than spread from its facts: V8 gives an object copied by a
 * spread and then added to a hidden class of its own (~250 bytes per row that has facts).
 */
export const entryOf = (state: LockState, facts: RowFacts | null): RowEntry =>
  facts
    ? {
        heldSinceMs: facts.heldSinceMs,
        noTtl: facts.noTtl,
        waiting: facts.waiting,
        waitSinceMs: facts.waitSinceMs,
        state,
      }
    : state;

/** A row's facts from its per-node reads (unreachable nodes are undefined, as in the rows). */
export function factsOf(
  reads: ReadonlyArray<IndexedState | null | undefined>,
  quorumSize: number,
): RowFacts | null {
  let heldSinceMs: number | null = null;
  let withoutTtl = 0;
  for (const read of reads) {
    if (!read) continue;
    if (read.acquiredAtMs !== null && heldSinceMs === null) heldSinceMs = read.acquiredAtMs;
    if (read.expiresAtMs < 0) withoutTtl += 1;
  }
  const { count: waiting, oldestSince: waitSinceMs } = waitersOf(reads);
  const noTtl = withoutTtl >= quorumSize;
  if (heldSinceMs === null && !noTtl && waiting === 0 && waitSinceMs === null) return null;
  return { heldSinceMs, noTtl, waiting, waitSinceMs };
}

/**
 * A multiset of instants, with how many lie before a threshold that moves with the clock: moving
 * it visits only the instants it passes, so counting "older than N ms" stays cheap per scrape.
 */
class Instants {
  /** Instant (epoch ms) -> how many rows have it. */
  readonly #counts = new BTree<number, number>();
  #thresholdMs = Number.NEGATIVE_INFINITY;
  #before = 0;

  add(instantMs: number, delta: 1 | -1): void {
    const count = (this.#counts.get(instantMs) ?? 0) + delta;
    if (count === 0) this.#counts.delete(instantMs);
    else this.#counts.set(instantMs, count);
    if (instantMs < this.#thresholdMs) this.#before += delta;
  }

  get earliest(): number | undefined {
    return this.#counts.minKey();
  }

  /** How many instants are strictly before `thresholdMs`. */
  countBefore(thresholdMs: number): number {
    const [low, high, sign] =
      thresholdMs >= this.#thresholdMs
        ? [this.#thresholdMs, thresholdMs, 1]
        : [thresholdMs, this.#thresholdMs, -1];
    this.#counts.forRange(low, high, false, (_, count) => {
      this.#before += sign * count;
    });
    this.#thresholdMs = thresholdMs;
    return this.#before;
  }
}

/** Running totals of every row's facts (see the file comment). */
export class FiguresTally {
  readonly #limits: FigureLimits;
  readonly #heldSince = new Instants();
  readonly #waitSince = new Instants();
  #noTtl = 0;
  #waiters = 0;

  constructor(limits: FigureLimits) {
    this.#limits = limits;
  }

  /** A row's facts went from `before` to `after` (null: none, or no row). */
  change(before: RowFacts | null, after: RowFacts | null): void {
    if (before) this.#count(before, -1);
    if (after) this.#count(after, 1);
  }

  figures(nowMs: number): OwnershipFigures {
    const { longHeldMs, longWaitMs } = this.#limits;
    const secondsSince = (epochMs: number | undefined) =>
      epochMs === undefined ? 0 : Math.max(0, (nowMs - epochMs) / 1000);
    return {
      oldestAgeS: secondsSince(this.#heldSince.earliest),
      longHeld: this.#heldSince.countBefore(nowMs - longHeldMs),
      noTtl: this.#noTtl,
      waiters: this.#waiters,
      oldestWaitS: secondsSince(this.#waitSince.earliest),
      longWaits: this.#waitSince.countBefore(nowMs - longWaitMs),
    };
  }

  #count(facts: RowFacts, delta: 1 | -1): void {
    if (facts.heldSinceMs !== null) this.#heldSince.add(facts.heldSinceMs, delta);
    if (facts.waitSinceMs !== null) this.#waitSince.add(facts.waitSinceMs, delta);
    if (facts.noTtl) this.#noTtl += delta;
    this.#waiters += delta * facts.waiting;
  }
}
