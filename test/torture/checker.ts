/**
 * Checks a torture run's history, as reported by every worker:
 * - overlap: two holders of one resource whose windows overlap. A holder's window runs from the
 *   moment `acquire` resolved to the earlier of its validity's end (`lock.expiration`, after the
 *   last extension) and the moment it began to release;
 * - token-order: fencing tokens not strictly increasing in holding order;
 * - the fenced store's verdicts (write-checks.ts).
 */
import { describeHolder, toHolders, type History, type Holder, type Violation } from "./history";
import { checkWrites } from "./write-checks";

export type { History, Violation } from "./history";

export interface CheckReport {
  readonly holders: number;
  /** Holders paused between winning and reading the clock, whose window had already ended. */
  readonly emptyWindows: number;
  readonly writes: number;
  /** Writes sent after the writer's validity had ended (a paused or overrunning holder). */
  readonly staleWrites: number;
  readonly staleWritesRefused: number;
  readonly violations: Violation[];
}

export function checkHistory(history: History): CheckReport {
  const { writes } = history;
  const holders = toHolders(history);
  const byValue = new Map(holders.map((holder) => [holder.value, holder]));
  const violations: Violation[] = [];
  for (const resource of new Set(holders.flatMap((holder) => holder.resources))) {
    const mine = holders.filter((holder) => holder.resources.includes(resource));
    violations.push(...findOverlaps(resource, mine), ...findTokenDisorder(resource, mine));
    violations.push(
      ...checkWrites(
        resource,
        writes.filter((write) => write.resource === resource),
        byValue,
      ),
    );
  }
  const stale = writes.filter(
    (write) => write.sentAt > (byValue.get(write.value)?.lastExpiration ?? 0),
  );
  return {
    holders: holders.length,
    emptyWindows: holders.filter((holder) => holder.acquiredAt >= holder.windowEnd).length,
    writes: writes.length,
    staleWrites: stale.length,
    staleWritesRefused: stale.filter((write) => !write.accepted).length,
    violations,
  };
}

/** Sweeps the windows in start order; a window starting before an earlier one ends overlaps it. */
export function findOverlaps(resource: string, holders: readonly Holder[]): Violation[] {
  const windows = holders
    .filter((holder) => holder.acquiredAt < holder.windowEnd)
    .sort((a, b) => a.acquiredAt - b.acquiredAt);
  const violations: Violation[] = [];
  let latest: Holder | undefined;
  for (const holder of windows) {
    if (latest && holder.acquiredAt < latest.windowEnd) {
      violations.push({
        kind: "overlap",
        resource,
        at: holder.acquiredAt,
        message: `${describeHolder(holder)} acquired while ${describeHolder(latest)} still held ${resource}`,
      });
    }
    if (!latest || holder.windowEnd > latest.windowEnd) latest = holder;
  }
  return violations;
}

/**
 * Holding order is the order of the validity windows, which the overlap check proves disjoint.
 * A holder paused between winning and reading the clock may report a window that had already
 * ended (acquiredAt >= windowEnd): it never held the lock usably, its writes are all stale (the
 * store must refuse them once a later token was written), so it takes no place in the order.
 */
export function findTokenDisorder(resource: string, holders: readonly Holder[]): Violation[] {
  const ordered = holders
    .filter((holder) => holder.acquiredAt < holder.windowEnd)
    .sort((a, b) => a.acquiredAt - b.acquiredAt);
  const violations: Violation[] = [];
  ordered.forEach((holder, index) => {
    const previous = ordered[index - 1];
    if (!previous) return;
    if (
      holder.token === undefined ||
      previous.token === undefined ||
      holder.token <= previous.token
    ) {
      violations.push({
        kind: "token-order",
        resource,
        at: holder.acquiredAt,
        message: `${describeHolder(holder)} got a token not above its predecessor ${describeHolder(previous)}`,
      });
    }
  });
  return violations;
}
