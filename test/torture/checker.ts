/**
 * Checks a torture run's history, as reported by every worker:
 * - overlap: two holders of one resource whose windows overlap. A holder's window runs from the
 *   moment `acquire` resolved to the earlier of its validity's end (`lock.expiration`, after the
 *   last extension) and the moment it began to release;
 * - token-order: fencing tokens not strictly increasing in holding order;
 * - fenced-write-refused: the fenced store refused a write made inside the writer's validity window
 *   (someone with a higher token wrote while this holder still held the lock);
 * - stale-write-accepted: the store accepted a write after a higher token had been accepted.
 */
import type { ExtendedEvent, HeldEvent, ReleasingEvent, WriteEvent } from "./events";

export type ViolationKind =
  "overlap" | "token-order" | "fenced-write-refused" | "stale-write-accepted";

export interface Violation {
  readonly kind: ViolationKind;
  readonly resource: string;
  readonly message: string;
  /** When it happened (epoch ms), to line it up with the faults injected. */
  readonly at: number;
}

export interface Holder extends HeldEvent {
  /** Expiration after the last successful extension (the acquire's when never extended). */
  readonly lastExpiration: number;
  /** End of the window: min(lastExpiration, start of release). */
  readonly windowEnd: number;
}

export interface History {
  readonly held: readonly HeldEvent[];
  readonly extended: readonly ExtendedEvent[];
  readonly releases: readonly ReleasingEvent[];
  readonly writes: readonly WriteEvent[];
}

export function toHolders({ held, extended, releases }: Omit<History, "writes">): Holder[] {
  const lastExpiration = new Map(held.map((event) => [event.value, event.expiration]));
  for (const event of extended)
    lastExpiration.set(
      event.value,
      Math.max(lastExpiration.get(event.value) ?? 0, event.expiration),
    );
  const releasedAt = new Map(releases.map((event) => [event.value, event.at]));
  return held.map((event) => {
    const expiration = lastExpiration.get(event.value)!;
    return {
      ...event,
      lastExpiration: expiration,
      windowEnd: Math.min(expiration, releasedAt.get(event.value) ?? Number.POSITIVE_INFINITY),
    };
  });
}

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

const describe = (holder: Holder) =>
  `${holder.value.slice(0, 8)} (worker ${holder.workerId}, token ${holder.token}, ${holder.acquiredAt}..${holder.windowEnd})`;

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
        message: `${describe(holder)} acquired while ${describe(latest)} still held ${resource}`,
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
        message: `${describe(holder)} got a token not above its predecessor ${describe(previous)}`,
      });
    }
  });
  return violations;
}

function checkWrites(
  resource: string,
  writes: readonly WriteEvent[],
  byValue: ReadonlyMap<string, Holder>,
): Violation[] {
  const violations: Violation[] = [];
  for (const write of writes) {
    const holder = byValue.get(write.value);
    if (holder && !write.accepted && write.doneAt <= holder.windowEnd) {
      violations.push({
        kind: "fenced-write-refused",
        resource,
        at: write.sentAt,
        message: `the store refused ${describe(holder)} inside its window at ${write.sentAt}`,
      });
    }
  }
  // Replays accepted writes in time order: none may carry a token below one accepted before it was sent.
  const accepted = writes.filter((write) => write.accepted);
  const byDone = [...accepted].sort((a, b) => a.doneAt - b.doneAt);
  let highest = Number.NEGATIVE_INFINITY;
  let next = 0;
  for (const write of [...accepted].sort((a, b) => a.sentAt - b.sentAt)) {
    while (next < byDone.length && byDone[next]!.doneAt < write.sentAt)
      highest = Math.max(highest, byDone[next++]!.token);
    if (write.token < highest) {
      violations.push({
        kind: "stale-write-accepted",
        resource,
        at: write.sentAt,
        message: `the store accepted token ${write.token} after token ${highest}`,
      });
    }
  }
  return violations;
}
