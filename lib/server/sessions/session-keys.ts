/**
 * The holder-session names and shapes fixed by docs/holder-sessions.md, as the console reads and
 * writes them (the library writes the same bytes): the session key, the notice channel, the
 * heartbeat's JSON, and the bounds derived from its `heartbeatMs`.
 */

/** A session id: 16 random bytes as 32 lowercase hex characters. */
export const SESSION_ID = /^[0-9a-f]{32}$/;

/** The heartbeat key, on every lock node; its hash tag is the id (a per-process key, no multi-key script touches it). */
export const sessionKey = (sessionId: string) => `redlock:session:{${sessionId}}`;

/** Where the console publishes notices to one session, on every lock node. */
export const noticeChannel = (sessionId: string) => `redlock:notice:{${sessionId}}`;

/** The library's default heartbeat period, assumed when a heartbeat does not say its own. */
export const DEFAULT_HEARTBEAT_MS = 1_000;

/** A heartbeat older than this is late. */
export const lateAfterMs = (heartbeatMs: number) => 3 * heartbeatMs;

/** The session key's TTL: a node whose uptime is shorter may have lost (or kept stale) heartbeats. */
export const sessionWindowMs = (heartbeatMs: number) => Math.max(60_000, 60 * heartbeatMs);

/** One heartbeat: `{"v":1,"labels":{…},"startedAt":…,"heartbeatMs":…,"clientId":…}`. */
export interface Heartbeat {
  readonly labels: Record<string, string>;
  readonly startedAt: number | null;
  readonly heartbeatMs: number;
  /** CLIENT ID of the connection that sent it; null when missing or garbled. */
  readonly clientId: number | null;
}

const isLabels = (value: unknown): value is Record<string, string> =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((label) => typeof label === "string");

const positiveInteger = (value: unknown): number | null =>
  Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : null;

/** A session key's value; null for anything that is no heartbeat of version 1. */
export function parseHeartbeat(text: string): Heartbeat | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const fields = parsed as Record<string, unknown>;
  if (fields.v !== 1) return null;
  return {
    labels: isLabels(fields.labels) ? fields.labels : {},
    startedAt: positiveInteger(fields.startedAt),
    heartbeatMs: positiveInteger(fields.heartbeatMs) ?? DEFAULT_HEARTBEAT_MS,
    clientId: positiveInteger(fields.clientId),
  };
}
