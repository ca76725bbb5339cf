/**
 * The library's ownership as the console reads it (formats fixed by the library, lib/redlock/value.ts
 * and keys.ts): a 2.x lock's value carries its owner (`rl1:<token>:<json>`); a 1.x lock has an owner
 * entry `redlock:owner:<resource>`, a hash {value, labels (JSON), acquiredAt, extensions} that
 * belongs to the holder whose value equals its `value` field, read for one major version; waiters
 * are a sorted set (`waitersKey(resource)`) of JSON members {id, labels, since} scored by the epoch
 * ms at which each wait ends. The Lua here runs inside the same script as the lock read, so an owner
 * entry is only ever compared with the holder value read at the same instant.
 */
import type { OwnerInfo, WaitersSummary } from "@/lib/api";
import {
  decodeValue,
  decodeWaiterMember,
  legacyOwnerKey,
  VALUE_FORMAT_PREFIX,
  waitersKey,
} from "@redlock-console/redlock";
import { GROUP_COUNT_LUA } from "./group-count";
import { boundOwner } from "./read-key";
import { decodeTombstone } from "./tombstone";

/** A 1.x owner entry's labels JSON is read up to this many bytes (longer: no labels shown). */
const OWNER_LABELS_MAX_BYTES = 4096;

/** Waiters scanned per key for the oldest one; beyond it the oldest may be missed (the count is exact). */
const OLDEST_SCAN_LIMIT = 256;

/**
 * Waiter entries returned whole per key (member, score) for the wait-for graph (contention/): the
 * earliest-expiring first, each at most WAITER_MEMBER_MAX_BYTES (the library's are ~150 bytes; a
 * longer member is no entry of ours and is left out), so a read stays bounded in bytes.
 */
export const WAITERS_LISTED = 32;
const WAITER_MEMBER_MAX_BYTES = 1024;

/** The three keys one lock read needs: the lock, its 1.x owner entry, its waiters. */
export const ownershipKeys = (key: Buffer): Buffer[] => [key, legacyOwnerKey(key), waitersKey(key)];

/** Lua `existsEither(a, b)` on a single server: one EXISTS of both keys. */
export const EXISTS_EITHER_LUA = `
local function existsEither(a, b) return redis.call('EXISTS', a, b) > 0 end
`;

/**
 * Lua `existsEither(a, b)` on a Redis Cluster server: one EXISTS per key, as the two may hash to
 * different slots (1.x's owner entry of a name without a hash tag); a key in a slot this server
 * does not serve (an error reply) counts as absent.
 */
export const EXISTS_EITHER_ON_SHARD_LUA = `
local function existsHere(key)
  local reply = redis.pcall('EXISTS', key)
  return type(reply) == 'number' and reply > 0
end
local function existsEither(a, b) return existsHere(a) or existsHere(b) end
`;

/**
 * Lua `readLock(key, ownerKey, waitersKey, nowMs)` (needs `readKey` and `existsEither`): readKey's
 * PTTL and value, then the owner entry's {labels, acquiredAt, extensions} when its `value` equals the
 * string read (else false), the live waiters' count (score ≥ now), the oldest `since` among them
 * (false when none), readKey's cut of a long value (false when whole; read-key.ts) and up to
 * WAITERS_LISTED live waiter entries as a flat {member, score, …} list (parseWaiterList; empty
 * or false when the key has none) and, for a permit or read-write member key, its recorded count
 * (groupCount, group-count.ts; false otherwise).
 */
export const READ_LOCK_LUA = `${GROUP_COUNT_LUA}
local function readLock(key, ownerKey, waitersKey, nowMs)
  local reply = readKey(key)
  if reply[1] < -1 then return reply end
  local long = reply[3] or false
  local count = groupCount(key)
  -- Other libraries' locks have neither key: one command instead of two for them.
  if not existsEither(ownerKey, waitersKey) then return {reply[1], reply[2], false, 0, false, long, false, count} end
  local owner = false
  if not long and type(reply[2]) == 'string' and string.sub(reply[2], 1, ${VALUE_FORMAT_PREFIX.length}) ~= '${VALUE_FORMAT_PREFIX}' then
    -- pcall: an owner key of another type is no entry, not an error that fails the whole read.
    local entry = redis.pcall('HMGET', ownerKey, 'value', 'labels', 'acquiredAt', 'extensions')
    -- Labels JSON past its bound is cut (then it does not parse: no labels), never returned whole.
    if entry[1] == reply[2] then owner = {string.sub(entry[2] or '', 1, ${OWNER_LABELS_MAX_BYTES}), entry[3] or '', entry[4] or ''} end
  end
  local waiting = redis.pcall('ZCOUNT', waitersKey, nowMs, '+inf')
  local oldest = false
  local listed = {}
  if type(waiting) ~= 'number' then
    waiting = 0
  elseif waiting > 0 then
    local members = redis.call('ZRANGEBYSCORE', waitersKey, nowMs, '+inf', 'LIMIT', 0, ${OLDEST_SCAN_LIMIT})
    for _, member in ipairs(members) do
      local ok, waiter = pcall(cjson.decode, member)
      if ok and type(waiter) == 'table' and type(waiter.since) == 'number'
        and (not oldest or waiter.since < oldest) then
        oldest = waiter.since
      end
    end
    local entries = redis.call('ZRANGEBYSCORE', waitersKey, nowMs, '+inf', 'WITHSCORES', 'LIMIT', 0, ${WAITERS_LISTED})
    for index = 1, #entries, 2 do
      if #entries[index] <= ${WAITER_MEMBER_MAX_BYTES} then
        listed[#listed + 1] = entries[index]
        listed[#listed + 1] = entries[index + 1]
      end
    end
  end
  return {reply[1], reply[2], owner, waiting, oldest, long, listed, count}
end
`;

/** A JSON object of string → string, or null for anything else. */
export function parseLabels(text: unknown): Record<string, string> | null {
  if (typeof text !== "string") return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
    const entries = Object.entries(parsed);
    return entries.every(([, value]) => typeof value === "string")
      ? (Object.fromEntries(entries) as Record<string, string>)
      : null;
  } catch {
    return null;
  }
}

const wholeNumber = (text: unknown): number | null => {
  const number = Number(text);
  return typeof text === "string" && /^\d+$/.test(text) && Number.isSafeInteger(number)
    ? number
    : null;
};

/** The owner a 2.x value carries, in the API's shape; null for any other value. */
export function ownerOfValue(value: string): OwnerInfo | null {
  const owner = decodeValue(value)?.owner;
  return owner
    ? boundOwner(
        Object.entries(owner.labels).map(([name, text]) => [name, text, text.length]),
        { acquiredAt: owner.acquiredAt, ttlMs: owner.ttlMs ?? null, extensions: null },
      )
    : null;
}

/**
 * The holder session a value names: this library's value's, or a tombstone's (the session of the
 * holder it replaced); null for any other value, a value without one, or a garbled id.
 */
export function sessionOfValue(value: string): string | null {
  // Most values carry no session (other libraries, `session: false`): skip the JSON for them.
  if (!value.includes('"session"')) return null;
  return decodeValue(value)?.session ?? decodeTombstone(value)?.session ?? null;
}

/** readLock's 1.x owner part: [labels, acquiredAt, extensions]; null when absent or garbled. */
export function parseOwnerReply(reply: unknown): OwnerInfo | null {
  if (!Array.isArray(reply)) return null;
  const [labelsText, acquiredAtText, extensionsText] = reply.map((part) =>
    part === null || part === undefined ? "" : String(part),
  );
  const acquiredAt = wholeNumber(acquiredAtText);
  if (acquiredAt === null) return null;
  const labels = Object.entries(parseLabels(labelsText) ?? {});
  return boundOwner(
    labels.map(([name, text]) => [name, text, text.length]),
    { acquiredAt, ttlMs: null, extensions: wholeNumber(extensionsText) ?? 0 },
  );
}

/** readLock's waiters part. */
export function parseWaitersReply(count: unknown, oldest: unknown): WaitersSummary {
  return {
    count: typeof count === "number" && count > 0 ? count : 0,
    oldestSince: typeof oldest === "number" ? oldest : null,
  };
}

/** The holder session a waiters member names (its `"session"` field); null when none. */
export function sessionOfWaiterMember(member: string): string | null {
  if (!member.includes('"session"')) return null;
  return decodeWaiterMember(member)?.session ?? null;
}

/** One waiters member (the library's format, decodeWaiterMember) with its score; null when garbled. */
export function parseWaiterMember(
  member: string,
  score: number,
): { id: string; labels: Record<string, string>; since: number; expiresAt: number } | null {
  const decoded = decodeWaiterMember(member);
  if (!decoded) return null;
  return { id: decoded.id, labels: { ...decoded.labels }, since: decoded.since, expiresAt: score };
}
