/**
 * A holder session's liveness from what each lock node says of it, exactly as docs/holder-sessions.md
 * fixes it. Pure: the reads are read-session.ts's. "Gone" is a guess, never proof (a closed TCP
 * connection may be a proxy's, a network cut's or a process that closed its own clients), so every
 * doubt counts against it: a node that did not answer, restarted recently, may have closed idle
 * clients by itself since the heartbeat was written, changed the primary serving the session key
 * since then, a heartbeat that cannot be read, a connection whose state is unknown, and any fresh
 * heartbeat anywhere.
 */
import type { HolderSessionState } from "@/lib/api";
import {
  DEFAULT_HEARTBEAT_MS,
  lateAfterMs,
  quorumSize,
  sessionWindowMs,
} from "@redlock-console/redlock";
import { parseHeartbeat, type Heartbeat } from "./session-keys";

/** What one lock node said of the session. */
export interface SessionReading {
  /** False when the node did not answer in time: every other field is then ignored. */
  readonly answered: boolean;
  /** The node's `uptime_in_seconds` (a cluster node: of the primary owning the session key); null if unknown. */
  readonly uptimeS: number | null;
  /**
   * How long before this read began the server's idle-client `timeout` had been observed 0
   * without interruption (the periodic reads and this read's own); null when it is not 0 now or
   * cannot be read. A server that closes idle clients closes a paused holder's connection too, so
   * a connection closed there proves nothing unless `timeout` was 0 all along since the heartbeat.
   */
  readonly timeoutZeroForMs: number | null;
  /**
   * How long before this read began the server answering for the session key had been observed
   * serving it without interruption (a single node: the console's connection to it, which a
   * restart drops; a cluster node: the primary serving the key's slot, by CLUSTER MYID); null
   * when unknown. After a failover the replicated heartbeat names a connection of the old primary.
   */
  readonly keyServerForMs: number | null;
  /** The session key's value; null when absent. */
  readonly sessionValue: string | null;
  /** The session key's PTTL (-2 absent, -1 no TTL). */
  readonly pttlMs: number;
  /** Whether the heartbeat's recorded `clientId` is still connected; null when not known (not asked, no id, an error). */
  readonly clientConnected: boolean | null;
}

export interface Liveness {
  readonly state: HolderSessionState;
  /** Console clock (epoch ms) of the freshest heartbeat among the nodes that answered; null if none has one. */
  readonly lastSeenAt: number | null;
  /** The session's owner labels, from its freshest heartbeat; empty when none was read. */
  readonly labels: Record<string, string>;
}

/**
 * Since when a condition has held on every read, after one more read at `nowMs`: kept while it
 * holds, restarted at `nowMs` when it starts holding, null when it does not hold (or is unknown).
 */
export function nextSince(sinceMs: number | null, holds: boolean, nowMs: number): number | null {
  return holds ? (sinceMs ?? nowMs) : null;
}

const UNKNOWN: Liveness = { state: "unknown", lastSeenAt: null, labels: {} };

interface NodeView {
  readonly heartbeat: Heartbeat | null;
  /** SESSION_WINDOW − PTTL: how long ago the heartbeat was written (node time); null when unreadable. */
  readonly ageMs: number | null;
  /** No heartbeat, or one older than LATE_AFTER. */
  readonly late: boolean;
  /** The node may say "closed": late, its connection closed, and nothing else could have closed it. */
  readonly provesGone: boolean;
}

/**
 * Whether a closed connection on this node says anything: up longer than the window (a key written
 * before a restart names a connection of another life), and since before the heartbeat was written
 * (`ageMs` ago, measured at or after the read began) `timeout` 0 and the same server for the key.
 */
function counts(reading: SessionReading, ageMs: number, windowMs: number): boolean {
  const since = (forMs: number | null) => forMs !== null && forMs >= ageMs;
  return (
    reading.uptimeS !== null &&
    reading.uptimeS * 1000 > windowMs &&
    since(reading.timeoutZeroForMs) &&
    since(reading.keyServerForMs)
  );
}

function viewOf(reading: SessionReading, windowMs: number): NodeView {
  if (reading.sessionValue === null || reading.pttlMs === -2)
    // Missing: older than the window, so late; but it proves nothing of the connection.
    return { heartbeat: null, ageMs: null, late: true, provesGone: false };
  const heartbeat = parseHeartbeat(reading.sessionValue);
  // A key without a TTL, or a value that is no heartbeat, has no age: neither fresh nor late.
  if (!heartbeat || reading.pttlMs < 0)
    return { heartbeat, ageMs: null, late: false, provesGone: false };
  const ageMs = Math.max(0, sessionWindowMs(heartbeat.heartbeatMs) - reading.pttlMs);
  const late = ageMs > lateAfterMs(heartbeat.heartbeatMs);
  const closed = heartbeat.clientId !== null && reading.clientConnected === false;
  return { heartbeat, ageMs, late, provesGone: late && closed && counts(reading, ageMs, windowMs) };
}

/**
 * The liveness of session `sessionId` (null: the holder's value carries none) from one reading per
 * lock node (every configured node, answered or not: majorities are of all of them) at `nowMs`.
 */
export function deriveLiveness(
  sessionId: string | null,
  readings: readonly SessionReading[],
  nowMs: number,
): Liveness {
  if (sessionId === null) return UNKNOWN;
  const majority = quorumSize(readings.length);
  const answered = readings.filter((reading) => reading.answered);
  // A node counts only once up longer than the session window: the longest any heartbeat names
  // (one process writes them all alike); the library's default when none can be read, though a
  // node without a heartbeat can prove nothing anyway.
  const named = answered.flatMap((reading) => {
    const heartbeat = reading.sessionValue ? parseHeartbeat(reading.sessionValue) : null;
    return heartbeat ? [heartbeat.heartbeatMs] : [];
  });
  const heartbeatMs = named.length > 0 ? Math.max(...named) : DEFAULT_HEARTBEAT_MS;
  const views = answered.map((reading) => viewOf(reading, sessionWindowMs(heartbeatMs)));
  const fresh = views.filter((view) => view.ageMs !== null && !view.late).length;
  const provedGone = views.filter((view) => view.provesGone).length;
  const aged = views.filter((view) => view.ageMs !== null);
  const youngest = aged.reduce<NodeView | null>(
    (best, view) => (best === null || view.ageMs! < best.ageMs! ? view : best),
    null,
  );
  return {
    // One fresh heartbeat anywhere says the holder still runs: the nodes it cannot reach (a
    // proxy restarting, a network cut) are no evidence that it stopped.
    state:
      fresh >= majority ? "alive" : fresh === 0 && provedGone >= majority ? "gone" : "unresponsive",
    lastSeenAt: youngest ? nowMs - youngest.ageMs! : null,
    labels:
      youngest?.heartbeat?.labels ?? views.find((view) => view.heartbeat)?.heartbeat?.labels ?? {},
  };
}
