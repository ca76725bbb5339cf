import type { LiveLockRow, LockState } from "@/lib/api/locks";

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

/** The fields of a row the sort reads (heldSince and waiters may be left out: unknown, none). */
export type SortableLockRow = Pick<LiveLockRow, "resource" | "state" | "quorum" | "validUntilMs"> &
  Partial<Pick<LiveLockRow, "heldSince">> & { waiters?: Pick<LiveLockRow["waiters"], "count"> };

// Trouble first when sorting by state ascending: conflict, partial, being released, then held.
const STATE_RANK: Record<LockState, number> = { conflict: 0, partial: 1, releasing: 2, held: 3 };

/** Never-expiring rows are already last (Infinity); no majority means already invalid: first. */
function validityRank(row: SortableLockRow): number {
  return row.validUntilMs ?? Number.NEGATIVE_INFINITY;
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
