import { isLabels } from "./owner";
import type { OwnerInfo } from "./types";

/**
 * The lock's value on every node. With `owner: false` it is the bare token: 20 random bytes as 40
 * hex chars, exactly node-redlock's. With owner labels (the default) the owner travels in the value,
 * so `GET <resource>` alone says who holds it and no second key is written:
 *
 *   rl1:<40-hex token>:{"acquiredAt":<epoch ms>,"ttlMs":<ms>,"labels":{...},"session":"<32 hex>"}
 *
 * `session` is the holder session's id (session.ts), absent with `session: false` and in values
 * written before sessions existed, which still decode.
 * `rl1:` names the format and its version; the token has a fixed length; the JSON runs to the end.
 * Scripts compare the whole value, so the token alone still decides who holds the lock. `ttlMs` is
 * the TTL it was acquired with: a lock held longer than that was extended (extensions are no longer
 * counted on the nodes, as 1.x's owner hash did: a value never changes while held).
 */
export const VALUE_FORMAT_PREFIX = "rl1:";
const TOKEN_CHARS = 40;
const JSON_START = VALUE_FORMAT_PREFIX.length + TOKEN_CHARS + 1;
const TOKEN = /^[0-9a-f]{40}$/;
/** A session id: 16 random bytes as 32 lowercase hex chars. */
export const SESSION_ID = /^[0-9a-f]{32}$/;

/**
 * The value for a token and, unless owner metadata is off, its labels JSON, acquisition and
 * holder session.
 */
export function encodeValue(
  token: string,
  labelsJson: string | undefined,
  acquiredAtMs: number,
  ttlMs: number,
  sessionId?: string,
): string {
  if (labelsJson === undefined) return token;
  // Built by hand around the labels JSON computed once per settings (owner.ts): no stringify per acquire.
  const session = sessionId === undefined ? "" : `,"session":"${sessionId}"`;
  return `${VALUE_FORMAT_PREFIX}${token}:{"acquiredAt":${acquiredAtMs},"ttlMs":${ttlMs},"labels":${labelsJson}${session}}`;
}

/** What a value written by this library says, as decodeValue reads it. */
export interface DecodedValue {
  readonly token: string;
  readonly owner: OwnerInfo;
  /** The holder session's id (also `owner.session`); absent when the value carries none. */
  readonly session?: string;
}

/**
 * When the holder of a value written by this library acquired, without decoding the rest: read where
 * encodeValue writes it, else (another writer's key order) from the decoded value; null for any other
 * value. For readers that keep many values and ask often (the console's index).
 */
export function acquiredAtOfValue(value: string): number | null {
  const at = JSON_START + ACQUIRED_AT_FIELD.length;
  if (value.startsWith(VALUE_FORMAT_PREFIX) && value.startsWith(ACQUIRED_AT_FIELD, JSON_START)) {
    const digits = /^\d{1,15}(?=[,}])/.exec(value.slice(at, at + 16))?.[0];
    if (digits) return Number(digits);
  }
  return decodeValue(value)?.owner.acquiredAt ?? null;
}
const ACQUIRED_AT_FIELD = '{"acquiredAt":';

/** What a value written by this library says; undefined for any other value (another library's). */
export function decodeValue(value: string): DecodedValue | undefined {
  if (!value.startsWith(VALUE_FORMAT_PREFIX) || value[JSON_START - 1] !== ":") return undefined;
  const token = value.slice(VALUE_FORMAT_PREFIX.length, JSON_START - 1);
  if (!TOKEN.test(token)) return undefined;
  try {
    const parsed = JSON.parse(value.slice(JSON_START)) as Record<string, unknown>;
    const { acquiredAt, ttlMs, labels, session } = parsed;
    if (!Number.isSafeInteger(acquiredAt) || !Number.isSafeInteger(ttlMs) || !isLabels(labels))
      return undefined;
    const owner = { labels, acquiredAt: acquiredAt as number, ttlMs: ttlMs as number };
    if (typeof session !== "string" || !SESSION_ID.test(session)) return { token, owner };
    return { token, owner: { ...owner, session }, session };
  } catch {
    return undefined;
  }
}

/**
 * Whether the holder has extended its lock, as far as anyone reading the nodes can tell: a 1.x owner
 * entry counted extensions; a 2.x value only shows it once the lock is held longer than its first TTL.
 */
export const wasExtended = (owner: OwnerInfo, nowMs: number): boolean =>
  owner.extensions !== undefined
    ? owner.extensions > 0
    : owner.ttlMs !== undefined && nowMs - owner.acquiredAt > owner.ttlMs;
