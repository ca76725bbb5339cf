/**
 * The wire protocol between this library and anyone who reads its keys (the console first), fixed
 * in docs/holder-sessions.md: every format both sides read or write, encoder beside decoder, so the
 * two can never drift apart. Browser-safe (no `node:` import, no Buffer): the console's browser
 * code imports it too, as `@redlock-console/redlock/protocol`.
 *
 * One job, on purpose in one file: issue 39 asked for every shared format in one place, so a change
 * to one is made once and reviewed beside the others (six formats, ~60 lines each).
 *
 * Decoders never throw: anything that is not the format (another writer's, garbled, cut) decodes
 * to undefined.
 */
/** Auxiliary keys (fencing counters, waiters, marks, sessions) live under it; never a lock. */
export const RESERVED_PREFIX = "redlock:";
/** A lock's random token: 20 random bytes as 40 lowercase hex chars (node-redlock's whole value). */
export const TOKEN_PATTERN = /^[0-9a-f]{40}$/;
const TOKEN_CHARS = 40;
/** A holder session's id: 16 random bytes as 32 lowercase hex chars. */
export const SESSION_ID_PATTERN = /^[0-9a-f]{32}$/;

/** True for an object whose every value is a string (owner and waiter labels). */
export const isLabels = (value: unknown): value is Record<string, string> =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((label) => typeof label === "string");

/**
 * The clock drift a lock's validity allows for: `driftFactor · ttlMs`, as clocks run at slightly
 * different rates, plus 2 ms because Redis expires keys with 1 ms precision (the Redis distlock
 * page's formula, and node-redlock's).
 */
export const driftMs = (ttlMs: number, driftFactor: number): number =>
  Math.round(driftFactor * ttlMs) + 2;

const sessionOf = (field: unknown): string | undefined =>
  typeof field === "string" && SESSION_ID_PATTERN.test(field) ? field : undefined;

function parseObject(json: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

// ── Lock value ──────────────────────────────────────────────────────────────────────────────────

/**
 * The lock's value on every node. With `owner: false` it is the bare token, exactly node-redlock's.
 * With owner labels (the default) the owner travels in the value, so `GET <resource>` alone says
 * who holds it: `rl1:<token>:{"acquiredAt":<epoch ms>,"ttlMs":<ms>,"labels":{…},"session":"<id>"?}`.
 * `rl1:` names the format and its version; the token has a fixed length; the JSON runs to the end.
 * Scripts compare the whole value, so the token alone still decides who holds the lock. `ttlMs` is
 * the TTL it was acquired with; `session` is absent with `session: false` and in older values.
 */
export const VALUE_FORMAT_PREFIX = "rl1:";
const JSON_START = VALUE_FORMAT_PREFIX.length + TOKEN_CHARS + 1;
const ACQUIRED_AT_FIELD = '{"acquiredAt":';

/** The value for a token and, unless owner metadata is off (no labels JSON), its owner. */
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

/** Who holds a lock, as its value says (encodeValue), or a 1.x owner entry (`redlock:owner:<resource>`). */
export interface OwnerInfo {
  /** `host` and `pid` filled by the library, then the `owner` setting's labels, then the call's. */
  readonly labels: Readonly<Record<string, string>>;
  /** Epoch ms on the acquiring client's clock when its successful attempt started. */
  readonly acquiredAt: number;
  /** The TTL the lock was acquired with, ms: held longer than this, it was extended. Absent for 1.x entries. */
  readonly ttlMs?: number;
  /**
   * Successful extensions: on a `Lock`, those made through it; from `inspect()`, only for a lock
   * taken by 1.x (its owner entry counted them; a 2.x value does not change while held).
   */
  readonly extensions?: number;
  /** The holder session's id (`redlock.session.id`); absent when the value carries none. */
  readonly session?: string;
}

/** What a value written by this library says, as decodeValue reads it. */
export interface DecodedValue {
  readonly token: string;
  readonly owner: OwnerInfo;
  /** The holder session's id (also `owner.session`); absent when the value carries none. */
  readonly session?: string;
}

/** True when `text` starts as this library's value does (`rl1:<token>:{`), even cut short. */
export const startsAsValue = (text: string): boolean =>
  text.startsWith(VALUE_FORMAT_PREFIX) &&
  TOKEN_PATTERN.test(text.slice(VALUE_FORMAT_PREFIX.length, JSON_START - 1)) &&
  text.startsWith(":{", JSON_START - 1);

/** What a value written by this library says; undefined for any other value (another library's). */
export function decodeValue(value: string): DecodedValue | undefined {
  if (!startsAsValue(value)) return undefined;
  const fields = parseObject(value.slice(JSON_START));
  if (!fields) return undefined;
  const { acquiredAt, ttlMs, labels } = fields;
  if (!Number.isSafeInteger(acquiredAt) || !Number.isSafeInteger(ttlMs) || !isLabels(labels))
    return undefined;
  const token = value.slice(VALUE_FORMAT_PREFIX.length, JSON_START - 1);
  const owner = { labels, acquiredAt: acquiredAt as number, ttlMs: ttlMs as number };
  const session = sessionOf(fields.session);
  return session === undefined
    ? { token, owner }
    : { token, owner: { ...owner, session }, session };
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

// ── Tombstone (force-release) ───────────────────────────────────────────────────────────────────

/** A force-release's tombstone starts with it: `rlx:<40-hex token of the replaced value>:{…}`. */
export const TOMBSTONE_PREFIX = "rlx:";

/** The token a value's tombstone names: an `rl1:` value's token, or a bare value whole (RELEASE's Lua agrees). */
export const tokenOf = (value: string): string => /^rl1:([0-9A-Fa-f]+):/.exec(value)?.[1] ?? value;

/** What every tombstone of `value` starts with: `rlx:<token>:`. */
export const tombstonePrefix = (value: string): string => `${TOMBSTONE_PREFIX}${tokenOf(value)}:`;

/** A tombstone: `rlx:<token>:{"auditId","by","reason","at","session"?}`. */
export interface Tombstone {
  readonly token: string;
  readonly auditId: string;
  readonly by: string;
  readonly reason: string;
  /** Epoch ms of the force-release, on the console's clock. */
  readonly at: number;
  /** The replaced holder's session id, when it had one. */
  readonly session?: string;
}

/** What a tombstone says besides its token: who force-released, why, its audit entry, when, whose session. */
export type TombstoneFields = Omit<Tombstone, "token">;

/**
 * The tombstone naming `token` (a TOKEN_PATTERN: `tokenOf(value)` for this library's and
 * node-redlock's values; a reader of another library's value stands one in). Throws a TypeError
 * for any other token: no reader would recognise the tombstone.
 */
export function encodeTombstone(token: string, fields: TombstoneFields): string {
  if (!TOKEN_PATTERN.test(token))
    throw new TypeError(`A tombstone names a 40-hex token, got "${token.slice(0, 64)}".`);
  const { auditId, by, reason, at, session } = fields;
  const json = JSON.stringify(
    session === undefined ? { auditId, by, reason, at } : { auditId, by, reason, at, session },
  );
  return `${TOMBSTONE_PREFIX}${token}:${json}`;
}

/** True when `text` starts as a tombstone does (`rlx:<token>:`), even cut short. */
export const startsAsTombstone = (text: string): boolean =>
  text.startsWith(TOMBSTONE_PREFIX) &&
  TOKEN_PATTERN.test(text.slice(TOMBSTONE_PREFIX.length, TOMBSTONE_PREFIX.length + TOKEN_CHARS)) &&
  text[TOMBSTONE_PREFIX.length + TOKEN_CHARS] === ":";

const text = (field: unknown) => (typeof field === "string" ? field : "");

/** A tombstone's fields, or undefined for any other value (or a garbled one). */
export function decodeTombstone(value: string): Tombstone | undefined {
  if (!startsAsTombstone(value)) return undefined;
  const fields = parseObject(value.slice(TOMBSTONE_PREFIX.length + TOKEN_CHARS + 1));
  if (!fields || typeof fields.auditId !== "string") return undefined;
  const at = Number(fields.at);
  if (!Number.isFinite(at)) return undefined;
  const session = sessionOf(fields.session);
  return {
    token: value.slice(TOMBSTONE_PREFIX.length, TOMBSTONE_PREFIX.length + TOKEN_CHARS),
    auditId: fields.auditId,
    by: text(fields.by),
    reason: text(fields.reason),
    at,
    ...(session !== undefined && { session }),
  };
}

// ── Revoke marker ───────────────────────────────────────────────────────────────────────────────

/** A revoke marker: `{"auditId","by","reason","at","deadlineAt","value","releasedAt"?}`. */
export interface RevokeMarker {
  readonly auditId: string;
  readonly by: string;
  readonly reason: string;
  readonly at: number;
  /** Epoch ms by which the holder is asked to let go. */
  readonly deadlineAt: number;
  /** The value of the lock asked to let go. */
  readonly value: string;
  /** Epoch ms at which the holder released it, written by the holder's library. */
  readonly releasedAt?: number;
}

/** The marker's JSON, in the contract's field order. */
export function encodeRevokeMarker(marker: RevokeMarker): string {
  const { auditId, by, reason, at, deadlineAt, value, releasedAt } = marker;
  const fields = { auditId, by, reason, at, deadlineAt, value };
  return JSON.stringify(releasedAt === undefined ? fields : { ...fields, releasedAt });
}

/** A revoke marker's fields, or undefined for anything else. */
export function decodeRevokeMarker(json: string): RevokeMarker | undefined {
  const fields = parseObject(json);
  if (!fields || typeof fields.auditId !== "string" || typeof fields.value !== "string")
    return undefined;
  const { auditId, by, reason, at, deadlineAt, value, releasedAt } = fields;
  if (!Number.isFinite(deadlineAt)) return undefined;
  return {
    auditId,
    by: text(by),
    reason: text(reason),
    at: Number(at),
    deadlineAt: deadlineAt as number,
    value,
    ...(Number.isFinite(releasedAt) && { releasedAt: releasedAt as number }),
  };
}

// ── Notice ──────────────────────────────────────────────────────────────────────────────────────

/** What the console publishes on a session's notice channel. */
export interface Notice {
  readonly kind: "force-release" | "revoke";
  readonly resource: string;
  readonly auditId: string;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const lossyUtf8 = new TextDecoder("utf-8");

/** `strictUtf8.decode`, or undefined for bytes that are not UTF-8. */
function utf8Of(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * `{"kind","resource","resourceBase64"?,"auditId"}`. A resource given as a key's bytes that are not
 * UTF-8 travels as base64 too (`resource` then has U+FFFD for what did not decode).
 */
export function encodeNotice(notice: Omit<Notice, "resource"> & { resource: string | Uint8Array }) {
  const { kind, resource, auditId } = notice;
  if (typeof resource === "string") return JSON.stringify({ kind, resource, auditId });
  const utf8 = utf8Of(resource);
  if (utf8 !== undefined) return JSON.stringify({ kind, resource: utf8, auditId });
  let binary = "";
  for (const byte of resource) binary += String.fromCharCode(byte);
  const resourceBase64 = btoa(binary);
  return JSON.stringify({ kind, resource: lossyUtf8.decode(resource), resourceBase64, auditId });
}

/**
 * A notice's fields, or undefined for a message that is not one, or names a key whose bytes are not
 * UTF-8 (no lock of this library: its resources are strings, sent as UTF-8).
 */
export function decodeNotice(message: string): Notice | undefined {
  const fields = parseObject(message);
  if (!fields) return undefined;
  const { kind, resource, resourceBase64, auditId } = fields;
  if ((kind !== "force-release" && kind !== "revoke") || typeof auditId !== "string")
    return undefined;
  if (typeof resourceBase64 === "string") {
    let binary: string;
    try {
      binary = atob(resourceBase64);
    } catch {
      return undefined;
    }
    const named = utf8Of(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
    return named === undefined ? undefined : { kind, resource: named, auditId };
  }
  return typeof resource === "string" ? { kind, resource, auditId } : undefined;
}

// ── Heartbeat ───────────────────────────────────────────────────────────────────────────────────

/** Heartbeat period of a session when the setting (or a heartbeat) does not say, in ms. */
export const DEFAULT_HEARTBEAT_MS = 1_000;
/** A heartbeat older than this is late: three periods missed. */
export const lateAfterMs = (heartbeatMs: number): number => 3 * heartbeatMs;
/**
 * The session key's TTL, 60 periods (60 s at the default heartbeat): how long a session stays
 * readable after its last heartbeat, so that a reader can still tell a long-paused holder from one
 * that never existed. A node up longer than this holds no session key written before a restart.
 */
export const sessionWindowMs = (heartbeatMs: number): number => 60 * heartbeatMs;

/** One heartbeat: `{"v":1,"labels":{…},"startedAt":…,"heartbeatMs":…,"clientId":…}`. */
export interface Heartbeat {
  readonly labels: Record<string, string>;
  readonly startedAt: number | null;
  readonly heartbeatMs: number;
  /** CLIENT ID of the connection that sent it; null when missing or garbled. */
  readonly clientId: number | null;
}

/** The heartbeat of one session per sending connection's CLIENT ID (built once, by hand, around the labels JSON). */
export function heartbeatEncoder(
  labelsJson: string,
  startedAtMs: number,
  heartbeatMs: number,
): (clientId: number) => string {
  const prefix = `{"v":1,"labels":${labelsJson},"startedAt":${startedAtMs},"heartbeatMs":${heartbeatMs},"clientId":`;
  return (clientId) => `${prefix}${clientId}}`;
}

const positiveInteger = (value: unknown): number | null =>
  Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : null;

/** A session key's value; undefined for anything that is no heartbeat of version 1. */
export function decodeHeartbeat(json: string): Heartbeat | undefined {
  const fields = parseObject(json);
  if (fields?.v !== 1) return undefined;
  return {
    labels: isLabels(fields.labels) ? fields.labels : {},
    startedAt: positiveInteger(fields.startedAt),
    heartbeatMs: positiveInteger(fields.heartbeatMs) ?? DEFAULT_HEARTBEAT_MS,
    clientId: positiveInteger(fields.clientId),
  };
}

// ── Waiter entry ────────────────────────────────────────────────────────────────────────────────

/**
 * One waiting acquire call's member of a waiters set, scored by the epoch ms at which it lapses:
 * `{"id","labels","since","firstFailedAt"?,"session"?,"wake"?}`.
 */
export interface WaiterMember {
  /** The call's random id (16 hex chars from this library). */
  readonly id: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Epoch ms (the contender's clock) when the acquire call began. */
  readonly since: number;
  /** Epoch ms of its first failed attempt: when the wait, as others see it, began. */
  readonly firstFailedAt?: number;
  readonly session?: string;
  /** The waiting instance's wake channel, once it listens (handoff). */
  readonly wake?: string;
}

/** Longest waiter id read (this library's are 16 chars). */
const WAITER_ID_MAX_CHARS = 64;

/** A waiters member, built by hand around the labels JSON computed once per settings. */
export function encodeWaiterMember(member: {
  readonly id: string;
  readonly labelsJson: string;
  readonly sinceMs: number;
  readonly firstFailedAtMs?: number;
  readonly sessionId?: string;
  readonly wakeChannel?: string;
}): string {
  const { id, labelsJson, sinceMs, firstFailedAtMs, sessionId, wakeChannel } = member;
  const failed = firstFailedAtMs === undefined ? "" : `,"firstFailedAt":${firstFailedAtMs}`;
  const session = sessionId === undefined ? "" : `,"session":"${sessionId}"`;
  const wake = wakeChannel === undefined ? "" : `,"wake":"${wakeChannel}"`;
  return `{"id":"${id}","labels":${labelsJson},"since":${sinceMs}${failed}${session}${wake}}`;
}

/** A waiters member's fields (labels absent read as none); undefined for anything else. */
export function decodeWaiterMember(member: string): WaiterMember | undefined {
  const fields = parseObject(member);
  if (!fields) return undefined;
  const { id, since, firstFailedAt, wake } = fields;
  const labels = fields.labels ?? {};
  if (typeof id !== "string" || id.length > WAITER_ID_MAX_CHARS) return undefined;
  if (!Number.isSafeInteger(since) || !isLabels(labels)) return undefined;
  const session = sessionOf(fields.session);
  return {
    id,
    labels,
    since: since as number,
    ...(Number.isSafeInteger(firstFailedAt) && { firstFailedAt: firstFailedAt as number }),
    ...(session !== undefined && { session }),
    ...(typeof wake === "string" && { wake }),
  };
}
