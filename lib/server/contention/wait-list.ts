/**
 * Every live wait as the Contention page lists it (issue 41 item 5). Before, the page showed waits
 * only through the chains, and a chain follows one edge per participant (paths.ts): a session with
 * several contenders waiting (its other waits, on other locks or the same one) and any wait on a
 * lock nobody holds at that instant (between two holders: no edge at all) appeared nowhere — with 8
 * contenders, 2 of them. This list names each wait once, longest first. Pure.
 */
import type { ContentionWait } from "@/lib/api";
import type { WaitedLock } from "./graph";

/** The live waits of `locks`, longest first (then by lock and waiter), at most `max`. */
export function listWaits(locks: Iterable<WaitedLock>, max: number): ContentionWait[] {
  const listed: ContentionWait[] = [];
  for (const lock of locks)
    for (const wait of lock.waits.values())
      listed.push({
        waiter: wait.participant,
        labels: { ...wait.labels },
        resource: lock.resource,
        since: wait.sinceMs,
        holder: lock.holder && { id: lock.holder.id, labels: { ...lock.holder.labels } },
      });
  listed.sort(
    (a, b) =>
      a.since - b.since ||
      (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0) ||
      (a.waiter < b.waiter ? -1 : a.waiter > b.waiter ? 1 : 0),
  );
  return listed.slice(0, max);
}
