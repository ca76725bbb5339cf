/**
 * Ownership figures for the metrics, from the node states directly, without folding rows
 * (O(rows × nodes) map reads, once per scrape).
 */
import type { IndexedState } from "../watch/node-store";
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

/** Figures over `keys`, each read per node by `readsOf`; ages in seconds at `nowMs`. */
export function ownershipFigures(
  keys: Iterable<string>,
  readsOf: (key: string) => ReadonlyArray<IndexedState | null | undefined>,
  { longHeldMs, longWaitMs, quorumSize }: FigureLimits,
  nowMs: number,
): OwnershipFigures {
  const figures = {
    oldestAgeS: 0,
    longHeld: 0,
    noTtl: 0,
    waiters: 0,
    oldestWaitS: 0,
    longWaits: 0,
  };
  const secondsSince = (epochMs: number) => Math.max(0, (nowMs - epochMs) / 1000);
  for (const key of keys) {
    const reads = readsOf(key);
    let heldSince: number | null = null;
    let withoutTtl = 0;
    for (const read of reads) {
      if (!read) continue;
      if (read.acquiredAtMs !== null && heldSince === null) heldSince = read.acquiredAtMs;
      if (read.expiresAtMs < 0) withoutTtl += 1;
    }
    const { count: waiting, oldestSince } = waitersOf(reads);
    if (heldSince !== null) {
      figures.oldestAgeS = Math.max(figures.oldestAgeS, secondsSince(heldSince));
      if (nowMs - heldSince > longHeldMs) figures.longHeld += 1;
    }
    if (withoutTtl >= quorumSize) figures.noTtl += 1;
    figures.waiters += waiting;
    if (oldestSince !== null) {
      figures.oldestWaitS = Math.max(figures.oldestWaitS, secondsSince(oldestSince));
      if (nowMs - oldestSince > longWaitMs) figures.longWaits += 1;
    }
  }
  return figures;
}
