/**
 * What a node's restart means for the locks held now: every held lock the node lacks stands on one
 * node fewer than it was granted on, so its margin (nodes it can lose and still hold a majority)
 * shrank. Counted from the live index (memory, no node read); said in words by lib/api/lock-margin.
 * Pure.
 */
import type { LockMargin, LockState } from "@/lib/api";

/** What the count needs of the live index. */
export interface MarginIndex {
  /** Every lock key (a semaphore's permits, not its row: LiveIndex.lockKeysFrom). */
  lockKeysFrom(low: string, state?: LockState): IterableIterator<string>;
  reads(key: string): ReadonlyArray<{ readonly expiresAtMs: number } | null | undefined>;
}

/**
 * Held locks that node `nodeIndex` lacks (absent there, not merely unreachable), grouped by how
 * many nodes hold them, most first. A held row has one value on all its holders (else it would be
 * a conflict), so its holders are its non-empty reads.
 */
export function locksLacking(index: MarginIndex, nodeIndex: number, nowMs: number): LockMargin[] {
  const byHolders = new Map<number, number>();
  for (const key of index.lockKeysFrom("", "held")) {
    const reads = index.reads(key);
    if (reads[nodeIndex] !== null) continue;
    const holders = reads.filter(
      (read) => read && (read.expiresAtMs < 0 || read.expiresAtMs > nowMs),
    ).length;
    byHolders.set(holders, (byHolders.get(holders) ?? 0) + 1);
  }
  return [...byHolders]
    .map(([holders, locks]) => ({ holders, locks }))
    .sort((a, b) => b.holders - a.holders);
}
