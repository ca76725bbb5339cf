/**
 * A holder session's liveness from what each lock node says of it, exactly as docs/holder-sessions.md
 * fixes it. Pure: the reads are read-session.ts's. A false "gone" is unsafe (force-release then frees
 * the lock without waiting for a holder that may still run), a false "unresponsive" only costs time,
 * so every doubt (a node that did not answer, restarted recently, closes idle clients by itself, a
 * heartbeat that cannot be read, a connection whose state is unknown) counts against "gone".
 */
import type { HolderSessionState } from "@/lib/api";
import { DEFAULT_HEARTBEAT_MS, lateAfterMs, sessionWindowMs } from "@redlock-console/redlock";
import { parseHeartbeat, type Heartbeat } from "./session-keys";

/** What one lock node said of the session. */
export interface SessionReading {
  /** False when the node did not answer in time: every other field is then ignored. */
  readonly answered: boolean;
  /** The node's `uptime_in_seconds` (a cluster node: of the primary owning the session key); null if unknown. */
  readonly uptimeS: number | null;
  /**
   * The server's idle-client `timeout` (CONFIG GET timeout, s; 0: never); null if unknown (CONFIG
   * refused or renamed). A server that closes idle clients closes a paused holder's connection
   * too, so a closed connection there proves no crash.
   */
  readonly idleTimeoutS: number | null;
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

const UNKNOWN: Liveness = { state: "unknown", lastSeenAt: null, labels: {} };

interface NodeView {
  readonly counted: boolean;
  readonly heartbeat: Heartbeat | null;
  /** SESSION_WINDOW − PTTL: how long ago the heartbeat was written (node time); null when unreadable. */
  readonly ageMs: number | null;
  /** No heartbeat, or one older than LATE_AFTER. */
  readonly late: boolean;
  readonly connectionClosed: boolean;
}

function viewOf(reading: SessionReading, countAfterMs: number): NodeView {
  const counted =
    reading.uptimeS !== null && reading.uptimeS * 1000 > countAfterMs && reading.idleTimeoutS === 0;
  if (reading.sessionValue === null || reading.pttlMs === -2)
    // Missing: older than the window, so late; but it proves nothing of the connection.
    return { counted, heartbeat: null, ageMs: null, late: true, connectionClosed: false };
  const heartbeat = parseHeartbeat(reading.sessionValue);
  // A key without a TTL, or a value that is no heartbeat, has no age: neither fresh nor late.
  const ageMs =
    heartbeat && reading.pttlMs >= 0
      ? Math.max(0, sessionWindowMs(heartbeat.heartbeatMs) - reading.pttlMs)
      : null;
  return {
    counted,
    heartbeat,
    ageMs,
    late: ageMs !== null && ageMs > lateAfterMs(heartbeat!.heartbeatMs),
    connectionClosed:
      heartbeat !== null && heartbeat.clientId !== null && reading.clientConnected === false,
  };
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
  const majority = Math.floor(readings.length / 2) + 1;
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
  const provedGone = views.filter(
    (view) => view.counted && view.late && view.connectionClosed,
  ).length;
  const aged = views.filter((view) => view.ageMs !== null);
  const youngest = aged.reduce<NodeView | null>(
    (best, view) => (best === null || view.ageMs! < best.ageMs! ? view : best),
    null,
  );
  return {
    state: fresh >= majority ? "alive" : provedGone >= majority ? "gone" : "unresponsive",
    lastSeenAt: youngest ? nowMs - youngest.ageMs! : null,
    labels:
      youngest?.heartbeat?.labels ?? views.find((view) => view.heartbeat)?.heartbeat?.labels ?? {},
  };
}
