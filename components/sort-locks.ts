import type { LockState } from "@/lib/api/locks";

export const LOCK_SORT_KEYS = [
  "resource",
  "state",
  "quorum",
  "validity",
  "held",
  "waiters",
] as const;
export type LockSortKey = (typeof LOCK_SORT_KEYS)[number];
export type SortDirection = "asc" | "desc";

export interface SortableLockRow {
  resource: string;
  state: LockState;
  quorum: number;
  validUntilMs: number | null;
  validityMs: number | null;
  /** When the holder acquired it (owner entry); null: unknown. */
  heldSince?: number | null;
  waiters?: { count: number };
}

// Trouble first when sorting by state ascending: conflict, then partial, then held.
const STATE_RANK: Record<LockState, number> = { conflict: 0, partial: 1, held: 2 };

function validityRank(row: SortableLockRow): number {
  if (row.validityMs !== null && row.validityMs < 0) return Number.POSITIVE_INFINITY; // never expires
  return row.validUntilMs ?? Number.NEGATIVE_INFINITY; // no majority: already invalid
}

function compareBy(key: LockSortKey, a: SortableLockRow, b: SortableLockRow): number {
  switch (key) {
    case "state":
      return STATE_RANK[a.state] - STATE_RANK[b.state];
    case "quorum":
      return a.quorum - b.quorum;
    case "validity":
      return validityRank(a) - validityRank(b);
    case "held":
      // Ascending = shortest held first; unknown ages (other libraries) last.
      return (
        (b.heldSince ?? Number.NEGATIVE_INFINITY) - (a.heldSince ?? Number.NEGATIVE_INFINITY) || 0
      );
    case "waiters":
      return (a.waiters?.count ?? 0) - (b.waiters?.count ?? 0);
    default:
      return 0;
  }
}

/** A sorted copy; ties fall back to the resource name so the order is stable across polls. */
export function sortLocks<T extends SortableLockRow>(
  rows: readonly T[],
  key: LockSortKey,
  direction: SortDirection,
): T[] {
  const sign = direction === "asc" ? 1 : -1;
  const byName = (a: T, b: T) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0);
  return [...rows].sort((a, b) => sign * (compareBy(key, a, b) || byName(a, b)));
}
