/**
 * What the console reads of docs/holder-sessions.md's holder sessions: the id's shape and the
 * heartbeat's JSON. Both are the library's wire protocol (`@redlock-console/redlock/protocol`,
 * beside the heartbeat's encoder), as are the session key, the notice channel, the default
 * heartbeat, LATE_AFTER and SESSION_WINDOW, so that the two sides can never disagree.
 */
import {
  decodeHeartbeat,
  SESSION_ID_PATTERN,
  type Heartbeat,
} from "@redlock-console/redlock/protocol";

export type { Heartbeat };

/** A session id: 16 random bytes as 32 lowercase hex characters. */
export const SESSION_ID = SESSION_ID_PATTERN;

/** A session key's value; null for anything that is no heartbeat of version 1. */
export const parseHeartbeat = (text: string): Heartbeat | null => decodeHeartbeat(text) ?? null;
