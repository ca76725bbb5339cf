/**
 * Checks the fenced store's verdicts against the holders' windows:
 * - fenced-write-refused: the store refused a write made inside the writer's window (someone with
 *   a higher or equal token wrote while this holder still held the lock);
 * - stale-write-accepted: the store accepted a token below one it had accepted before.
 */
import type { WriteEvent } from "./events";
import { describeHolder, type Holder, type Violation } from "./history";

export function checkWrites(
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
        message: `the store refused ${describeHolder(holder)} inside its window at ${write.sentAt}`,
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
