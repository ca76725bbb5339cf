/**
 * What the console alone needs of docs/holder-sessions.md's holder sessions: the id's shape and the
 * heartbeat's JSON, which the library only writes. The names and bounds both sides share (the
 * session key, the notice channel, the default heartbeat, LATE_AFTER, SESSION_WINDOW) are the
 * library's own (`@redlock-console/redlock`), so that the two can never disagree.
 */
import { DEFAULT_HEARTBEAT_MS } from "@redlock-console/redlock";

/** A session id: 16 random bytes as 32 lowercase hex characters. */
export const SESSION_ID = /^[0-9a-f]{32}$/;

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
