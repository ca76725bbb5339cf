/**
 * The Lua `readKey(key)` every lock read shares (the live index's chunks, the one-resource read),
 * and the parse of its bounded reply (issue 32 rows 6 and 7). A key's reply is a few KiB whatever
 * the value: a string over READ_VALUE_MAX_BYTES comes back as its first READ_VALUE_MAX_BYTES bytes
 * (GETRANGE), its true size (STRLEN), the SHA-1 of the whole value (so the console can show a digest
 * and force-release can compare it, force-release-node.ts) and, for this library's `rl1:` values, the
 * owner fields decoded on the server with every label cut to LABEL_VALUE_MAX_CHARS. Hashes are read
 * only when Redis keeps them compact (listpack: every field small) and every field is
 * Redisson-sized; sorted sets only under redis-semaphore's name `semaphore:…`, small, with a TTL. Each call also counts the value bytes it touched, so a chunk stops at a byte
 * allowance (the read budget counts bytes, key-reader.ts).
 */
import { createHash } from "node:crypto";
import { LABEL_VALUE_MAX_CHARS, LABELS_MAX, type OwnerInfo } from "@/lib/api";
import { VALUE_FORMAT_PREFIX } from "@redlock-console/redlock";

/** A string value is returned whole up to this size; beyond it, cut, with its size and SHA-1. */
export const READ_VALUE_MAX_BYTES = 4096;
/**
 * A string over this size is no lock (skipped, never hashed): hashing it would hold the node for
 * tens of ms, and no lock library writes values this large.
 */
export const VALUE_MAX_BYTES = 8 * 1024 * 1024;
/** A Redisson hash has one field per holder: an application hash with more is no lock. */
const REDISSON_MAX_FIELDS = 64;
/** Redisson's fields are `<uuid>:<thread id>` → a count: anything longer is no Redisson lock. */
const REDISSON_MAX_ENTRY_BYTES = 128;

/** redis-semaphore's Semaphore keeps its holders in the sorted set `semaphore:<key>`. */
export const REDIS_SEMAPHORE_PREFIX = "semaphore:";
/** A semaphore with more holders than this is not read (its limit is the application's). */
const REDIS_SEMAPHORE_MAX_MEMBERS = 128;
/** Its members are UUIDs with an optional suffix, its scores epoch ms: anything longer is no holder. */
const REDIS_SEMAPHORE_MAX_ENTRY_BYTES = 128;

/**
 * readKey's first element for a key that is present but was not read (another type, a string over
 * VALUE_MAX_BYTES, a large hash): no lock, yet not gone either (PTTL's -2 means gone).
 */
export const KEY_NOT_READ = -3;

/**
 * Lua `readKey(key)`: {PTTL, GET} for a short string; {PTTL, first bytes, {size, sha1, owner}}
 * for a longer one (owner: {acquiredAt, ttlMs, session, {name, cut value, size, …}} or false);
 * {PTTL, HGETALL} for a small hash; {PTTL, ZRANGE … WITHSCORES, 'zset'} for a small sorted set
 * named `semaphore:…` with a TTL (redis-semaphore's); {-2} when the key is gone; {-3} for a key of any other kind,
 * present but no lock (KEY_NOT_READ). `touchedBytes` sums the value bytes read or hashed since the
 * script began.
 */
export const READ_KEY_LUA = `
local touchedBytes = 0
local function ownerOfLongValue(value)
  local prefix = '${VALUE_FORMAT_PREFIX}'
  if string.sub(value, 1, #prefix) ~= prefix or string.sub(value, #prefix + 41, #prefix + 41) ~= ':' then return false end
  local ok, owner = pcall(cjson.decode, string.sub(value, #prefix + 42))
  if not ok or type(owner) ~= 'table' or type(owner.labels) ~= 'table'
    or type(owner.acquiredAt) ~= 'number' or type(owner.ttlMs) ~= 'number' then return false end
  local labels, count = {}, 0
  for name, text in pairs(owner.labels) do
    if type(name) ~= 'string' or type(text) ~= 'string' then return false end
    count = count + 1
    if count <= ${LABELS_MAX} then
      table.insert(labels, string.sub(name, 1, ${LABEL_VALUE_MAX_CHARS}))
      table.insert(labels, string.sub(text, 1, ${LABEL_VALUE_MAX_CHARS}))
      table.insert(labels, #text)
    end
  end
  local session = type(owner.session) == 'string' and string.sub(owner.session, 1, 64) or false
  return {owner.acquiredAt, owner.ttlMs, session, labels}
end
local function readKey(key)
  local kind = redis.call('TYPE', key)['ok']
  if kind == 'string' then
    local size = redis.call('STRLEN', key)
    if size > ${VALUE_MAX_BYTES} then return {${KEY_NOT_READ}} end
    touchedBytes = touchedBytes + size
    if size <= ${READ_VALUE_MAX_BYTES} then return {redis.call('PTTL', key), redis.call('GET', key)} end
    local value = redis.call('GET', key)
    return {redis.call('PTTL', key), string.sub(value, 1, ${READ_VALUE_MAX_BYTES}),
      {size, redis.sha1hex(value), ownerOfLongValue(value)}}
  elseif kind == 'hash' then
    -- Compact encodings keep every field small: a hash Redis stores otherwise is no Redisson lock.
    local encoding = redis.call('OBJECT', 'ENCODING', key)
    if (encoding == 'listpack' or encoding == 'ziplist') and redis.call('HLEN', key) <= ${REDISSON_MAX_FIELDS} then
      local entries = redis.call('HGETALL', key)
      for _, entry in ipairs(entries) do
        if #entry > ${REDISSON_MAX_ENTRY_BYTES} then return {${KEY_NOT_READ}} end
        touchedBytes = touchedBytes + #entry
      end
      return {redis.call('PTTL', key), entries}
    end
  elseif kind == 'zset' and string.sub(key, 1, ${REDIS_SEMAPHORE_PREFIX.length}) == '${REDIS_SEMAPHORE_PREFIX}' then
    -- redis-semaphore's Semaphore (lock-format.ts): always with a TTL, one member per holder.
    local pttl = redis.call('PTTL', key)
    if pttl > 0 and redis.call('ZCARD', key) <= ${REDIS_SEMAPHORE_MAX_MEMBERS} then
      local entries = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
      for _, entry in ipairs(entries) do
        if #entry > ${REDIS_SEMAPHORE_MAX_ENTRY_BYTES} then return {${KEY_NOT_READ}} end
        touchedBytes = touchedBytes + #entry
      end
      return {pttl, entries, 'zset'}
    end
  elseif kind == 'none' then
    return {-2}
  end
  return {${KEY_NOT_READ}}
end
`;

/** What the read tells of a value it cut: its size on the node and its digest. */
export interface ValueCut {
  /** The whole value's size on the node, in bytes. */
  readonly bytes: number;
  /** `sha1:` + the first 12 hex digits of the whole value's SHA-1 (valueDigest). */
  readonly digest: string;
}

/** The short digest anonymous readers see instead of a value, and force-release compares. */
export const digestOfHex = (sha1Hex: string): string => `sha1:${sha1Hex.slice(0, 12)}`;

/** The digest of a value the console holds whole (a Redisson hash: its holder fields joined). */
export const digestOf = (value: string): string =>
  digestOfHex(createHash("sha1").update(value, "utf8").digest("hex"));

/** What an owner says besides its labels. */
type OwnerRest = Pick<OwnerInfo, "acquiredAt" | "ttlMs" | "extensions">;

/**
 * An owner with its labels cut to LABEL_VALUE_MAX_CHARS (at most LABELS_MAX of them), with the
 * original size of each cut one in `truncatedLabels` (bytes when the node cut it, else characters).
 * Written out field by field, never spread: V8 gives an object copied by a spread and then added to
 * a hidden class of its own (~250 bytes each), and the timeline keeps one owner per hold.
 */
export function boundOwner(
  entries: ReadonlyArray<readonly [name: string, value: string, size: number]>,
  { acquiredAt, ttlMs, extensions }: OwnerRest,
): OwnerInfo {
  const labels: Record<string, string> = {};
  let truncatedLabels: Record<string, number> | null = null;
  for (const [name, value, size] of entries.slice(0, LABELS_MAX)) {
    const shortName = name.slice(0, LABEL_VALUE_MAX_CHARS);
    labels[shortName] = value.slice(0, LABEL_VALUE_MAX_CHARS);
    if (size > LABEL_VALUE_MAX_CHARS) (truncatedLabels ??= {})[shortName] = size;
  }
  return truncatedLabels
    ? { labels, truncatedLabels, acquiredAt, ttlMs, extensions }
    : { labels, acquiredAt, ttlMs, extensions };
}

/** The cut and the owner of a long value, from readKey's third element; null for a whole value. */
export function parseLongValue(
  extra: unknown,
): { cut: ValueCut; owner: OwnerInfo | null; session: string | null } | null {
  if (!Array.isArray(extra)) return null;
  const [bytes, sha1Hex, owner] = extra as [unknown, unknown, unknown];
  if (typeof bytes !== "number" || typeof sha1Hex !== "string") return null;
  const cut = { bytes, digest: digestOfHex(sha1Hex) };
  if (!Array.isArray(owner)) return { cut, owner: null, session: null };
  const [acquiredAt, ttlMs, session, flat] = owner as [unknown, unknown, unknown, unknown];
  const entries: Array<[string, string, number]> = [];
  if (Array.isArray(flat))
    for (let index = 0; index + 2 < flat.length; index += 3)
      entries.push([String(flat[index]), String(flat[index + 1]), Number(flat[index + 2])]);
  const whole = (number: unknown) =>
    typeof number === "number" && Number.isSafeInteger(number) ? number : null;
  if (whole(acquiredAt) === null) return { cut, owner: null, session: null };
  return {
    cut,
    owner: boundOwner(entries, {
      acquiredAt: whole(acquiredAt)!,
      ttlMs: (whole(ttlMs) ?? 0) > 0 ? whole(ttlMs) : null,
      extensions: null,
    }),
    session: typeof session === "string" ? session : null,
  };
}
