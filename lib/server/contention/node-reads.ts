import "server-only";
/**
 * The monitor's only reads of the nodes, bounded and never on a viewer's request: the liveness of
 * the sessions that have waited longest (a contender proven gone stops waiting at its last
 * heartbeat, not when its entry lapses), and the waiters lists of locks that show free.
 */
import type { ConsoleNode } from "../node-registry";
import { deriveLiveness } from "../sessions/liveness";
import { readSessions } from "../sessions/read-session";
import { PROBED_PER_TICK, probeWaiters } from "./probe-waiters";
import type { WaitTracker } from "./wait-tracker";

const LIVENESS_BATCH = 32;
/** A wait younger than this is not asked about: a session is late only after 3 heartbeats. */
const LIVENESS_MIN_WAIT_MS = 3_000;

/** Asks about the LIVENESS_BATCH sessions waiting longest; ends the waits of those proven gone. */
export async function endGoneWaits(
  tracker: WaitTracker,
  nodes: readonly ConsoleNode[],
  deadlineMs: number,
): Promise<void> {
  const nowMs = Date.now();
  const oldest = new Map<string, number>();
  for (const lock of tracker.locks())
    for (const { participant, sinceMs } of lock.waits.values())
      if (!participant.startsWith("waiter:") && nowMs - sinceMs > LIVENESS_MIN_WAIT_MS)
        oldest.set(participant, Math.min(oldest.get(participant) ?? nowMs, sinceMs));
  const sessions = [...oldest]
    .sort(([, a], [, b]) => a - b)
    .slice(0, LIVENESS_BATCH)
    .map(([id]) => id);
  const readings = await readSessions(nodes, sessions, deadlineMs);
  sessions.forEach((session, position) => {
    const liveness = deriveLiveness(session, readings[position]!, Date.now());
    if (liveness.state === "gone") tracker.sessionGone(session, liveness.lastSeenAt ?? Date.now());
  });
}

/** Reads the waiters lists of (at most PROBED_PER_TICK) locks that show free while waits are live. */
export async function probeAbsentLocks(
  tracker: WaitTracker,
  nodes: readonly ConsoleNode[],
  deadlineMs: number,
): Promise<void> {
  for (const key of tracker.absentKeys(PROBED_PER_TICK)) {
    const listed = await probeWaiters(nodes, key, deadlineMs);
    if (listed) tracker.probed(key, listed, Date.now());
  }
}
