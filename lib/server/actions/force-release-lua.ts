import "server-only";
/** The force-release script (force-release-node.ts runs it on each node). */
import { defineScript } from "@redlock-console/redlock";
import { READ_VALUE_MAX_BYTES } from "../locks/read/read-key";

export type NodeOutcome =
  | "deleted"
  | "replaced"
  /** Already a tombstone: left as it is (never lengthened). */
  | "reserved"
  /** A Redisson hash asked for a tombstone: left alone (only delete-now removes it). */
  | "hash"
  | "match"
  | "mismatch"
  | "absent"
  | "not_a_lock";

/**
 * KEYS[1] the lock key. ARGV[1] mode, ARGV[2] the expected holder ("" any; `digest:sha1:<12 hex>`:
 * the SHA-1 of the holder starts so), ARGV[3] "any" to act on a value of no lock format too (an
 * admin's explicit `notALock: true`), else "": "check" reports only; "delete" deletes (the explicit
 * delete-now); "tombstone" replaces a string lock by `rlx:<token>:<fields>` (docs/holder-sessions.md)
 * built here from what THIS node holds: the token of an `rl1:<40 hex>:` value, a bare 40-hex value
 * as it is, else the value's SHA-1 (as lib/server/locks/read/tombstone.ts tokenOf); ARGV[5] the
 * JSON fields, to which the replaced value's `session` is added. It lasts the PTTL plus drift,
 * round(ARGV[6] × ttl) + 2 ms with ttl = ARGV[7] or else the PTTL (the library's formula,
 * settings.ts), or ARGV[8] ms for a value without TTL.
 * What is a lock is judged HERE, on the value this node holds at the write (issue 49 row 3: the
 * value may change between the operator's read and the write): the formats of lock-format.ts and
 * key-state.ts (this library's `rl1:` and `rlx:`; with a TTL the bare tokens, redsync's base64 and
 * UUIDs; Redisson hashes of a few `<id>:<thread>` fields, UUID ones without a TTL). Any other value
 * answers "not_a_lock" and is left exactly as it is, unless ARGV[3] is "any"; the reply's fifth
 * element is "not_a_lock" whenever the value had no lock format, so the answer can say so. A tombstone already there is left as it is
 * ("reserved"), and so is a Redisson hash ("hash": it cannot hold a string tombstone).
 * A string lock's holder is its value; a Redisson hash lock's is its sorted holder fields joined by
 * "," (as the snapshot shows it). Returns { outcome, holder, type, pttl }: pttl the key's after the
 * call (the tombstone's life; before the delete for "deleted").
 * KEYS[2]: the library's owner entry for the lock (`redlock:owner:<key>`), deleted with it: it would
 * expire with the lock anyway, but must not outlive a force-release as a stale "holder" (a
 * tombstone leaves it: it names the replaced value, so no read shows it for the tombstone).
 * KEYS[3] (optional): an outcome marker, set to the outcome for ARGV[4] ms, so that a node which
 * answers too late can still be asked what this very call did (force-release-follow-up.ts).
 */
export const FORCE_RELEASE_SCRIPT = defineScript<
  | readonly [mode: "check", expected: string, formats: "any" | ""]
  | readonly [mode: "delete", expected: string, formats: "any" | "", markerTtlMs: number]
  | readonly [
      mode: "tombstone",
      expected: string,
      formats: "any" | "",
      markerTtlMs: number,
      fields: string,
      driftFactor: number,
      ttlMs: number | "",
      withoutTtlMs: number,
    ],
  [
    outcome: NodeOutcome,
    holder: string,
    type?: string,
    pttlMs?: number,
    format?: "lock" | "not_a_lock",
  ]
>(`
local function holds(holder)
  if ARGV[2] == '' then return true end
  -- 'digest:sha1:<12 hex>' compares the SHA-1 of the whole value (the operator saw it cut or digested).
  if string.sub(ARGV[2], 1, 7) == 'digest:' then
    return 'sha1:' .. string.sub(redis.sha1hex(holder), 1, 12) == string.sub(ARGV[2], 8)
  end
  return holder == ARGV[2]
end
local function hex40(text)
  return string.len(text) == 40 and not string.find(text, '[^0-9a-f]')
end
local function is_tombstone(value)
  return string.sub(value, 1, 4) == 'rlx:' and hex40(string.sub(value, 5, 44))
    and string.sub(value, 45, 45) == ':'
end
local function token_of(value)
  local token = string.match(value, '^rl1:([0-9A-Fa-f]+):') or value
  if hex40(token) then return token end
  return redis.sha1hex(value)
end
local function session_of(value)
  if string.sub(value, 1, 4) ~= 'rl1:' or string.sub(value, 45, 45) ~= ':' then return nil end
  if not string.find(value, '"session"', 46, true) then return nil end
  local ok, fields = pcall(cjson.decode, string.sub(value, 46))
  if not ok or type(fields) ~= 'table' then return nil end
  local session = fields['session']
  if type(session) == 'string' and string.len(session) == 32
    and not string.find(session, '[^0-9a-f]') then return session end
  return nil
end
local UUID = '^%x%x%x%x%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%x%x%x%x%x%x%x%x'
-- lock-format.ts stringLockFormat, on the whole value: rl1:/rlx: always, token shapes with a TTL.
local function is_lock_string(value, pttl)
  if is_tombstone(value) then return true end
  if string.sub(value, 1, 4) == 'rl1:' and hex40(string.sub(value, 5, 44))
    and string.sub(value, 45, 46) == ':{' then return true end
  if pttl < 0 then return false end
  local length = string.len(value)
  if (length == 32 or length == 40 or length == 64) and not string.find(value, '[^0-9a-fA-F]') then
    return true
  end
  if length == 24 and string.sub(value, 23) == '=='
    and not string.find(string.sub(value, 1, 22), '[^A-Za-z0-9+/]') then return true end
  if length == 22 and not string.find(value, '[^A-Za-z0-9+/_%-]') then return true end
  return length == 36 and string.find(value, UUID .. '$') ~= nil
end
-- key-state.ts parseRedissonHash: a few '<id>:<thread>' fields of re-entry counts ('mode' aside);
-- UUID ids without a TTL (read-node.ts). An application's big hash is judged by its length alone.
local REDISSON_FIELDS_MAX = 64
local function is_lock_hash(pttl)
  if redis.call('HLEN', KEYS[1]) > REDISSON_FIELDS_MAX then return false end
  local entries = redis.call('HGETALL', KEYS[1])
  local holders = 0
  for at = 1, #entries, 2 do
    local field, count = entries[at], entries[at + 1]
    if field ~= 'mode' then
      if not string.find(field, '.:%d+$') or string.find(count, '[^0-9]') or count == '' then
        return false
      end
      if pttl < 0 and not string.find(field, UUID .. ':%d+$') then return false end
      holders = holders + 1
    end
  end
  return holders > 0
end
local function tombstone(holder, pttl)
  local fields = ARGV[5]
  local session = session_of(holder)
  if session then fields = string.sub(fields, 1, -2) .. ',"session":"' .. session .. '"}' end
  local px = tonumber(ARGV[8])
  if pttl > 0 then
    px = pttl + math.floor(tonumber(ARGV[6]) * (tonumber(ARGV[7]) or pttl) + 0.5) + 2
  end
  redis.call('SET', KEYS[1], 'rlx:' .. token_of(holder) .. ':' .. fields, 'PX', px)
  return px
end
local function run()
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then return {'absent', ''} end
local holder
if kind == 'string' then
  holder = redis.call('GET', KEYS[1])
elseif kind == 'hash' then
  -- Bounded before any HKEYS: an application's hash of a million fields is no lock to read whole.
  if redis.call('HLEN', KEYS[1]) > REDISSON_FIELDS_MAX and ARGV[3] ~= 'any' then
    return {'not_a_lock', '', kind, redis.call('PTTL', KEYS[1]), 'not_a_lock'}
  end
  local fields = {}
  for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
    if field ~= 'mode' then table.insert(fields, field) end
  end
  table.sort(fields)
  holder = table.concat(fields, ',')
else
  return {'not_a_lock', kind, kind}
end
local pttl = redis.call('PTTL', KEYS[1])
if not holds(holder) then return {'mismatch', holder, kind, pttl} end
local is_lock
if kind == 'string' then is_lock = is_lock_string(holder, pttl) else is_lock = is_lock_hash(pttl) end
local format = is_lock and 'lock' or 'not_a_lock'
if not is_lock and ARGV[3] ~= 'any' then return {'not_a_lock', holder, kind, pttl, format} end
if ARGV[1] == 'check' then return {'match', holder, kind, pttl, format} end
if ARGV[1] == 'tombstone' then
  if kind == 'hash' then return {'hash', holder, kind, pttl, format} end
  if is_tombstone(holder) then return {'reserved', holder, kind, pttl, format} end
  return {'replaced', holder, kind, tombstone(holder, pttl), format}
end
redis.call('DEL', KEYS[1], KEYS[2])
return {'deleted', holder, kind, pttl, format}
end
local result = run()
if KEYS[3] then redis.call('SET', KEYS[3], result[1], 'PX', ARGV[4]) end
-- The holder found is reported cut, as reads cut it: a multi-MB value never travels back whole.
result[2] = string.sub(result[2], 1, ${READ_VALUE_MAX_BYTES})
return result
`);
