import "server-only";
/**
 * Reads lock keys from one node for the live index: PTTL + GET (strings) or HGETALL (Redisson
 * hashes) for every key of a chunk, with the library's 1.x owner entry and waiters of each key read
 * in the same script. One script call per chunk instead of commands per key: ioredis spends ~10 µs
 * of JavaScript per command, so per-key pipelines cost the console more than Redis itself.
 */
import type { Redis } from "ioredis";
import { defineScript, type ScriptArg } from "@redlock-console/redlock";
import { parseRedissonHash, type NodeKeyState } from "./key-state";
import { REDISSON_UUID_FIELD, stringLockFormat } from "./lock-format";
import {
  EXISTS_EITHER_LUA,
  EXISTS_EITHER_ON_SHARD_LUA,
  ownerOfValue,
  ownershipKeys,
  parseOwnerReply,
  parseWaitersReply,
  READ_LOCK_LUA,
} from "./ownership";
import { parseWaiterList } from "./waiter-list";

/**
 * A Redisson lock hash has one field per holder (a read lock: one per reader, plus "mode"); an
 * application hash with more fields is no lock, and is not read whole.
 */
const REDISSON_MAX_FIELDS = 64;

/**
 * Lua `readKey(key)`: {PTTL, GET} for a string, {PTTL, HGETALL} for a small hash, {-2} for
 * anything else or gone. Shared by the live index's chunk script and the one-resource read (read-one.ts).
 */
export const READ_KEY_LUA = `
local function readKey(key)
  local kind = redis.call('TYPE', key)['ok']
  if kind == 'string' then
    return {redis.call('PTTL', key), redis.call('GET', key)}
  elseif kind == 'hash' then
    -- Redisson sets a lease (or watchdog) TTL; a hash without one is a lock only when its fields are
    -- Redisson's own <uuid>:<thread> holders (toKeyState decides).
    local pttl = redis.call('PTTL', key)
    if redis.call('HLEN', key) <= ${REDISSON_MAX_FIELDS} then
      return {pttl, redis.call('HGETALL', key)}
    end
  end
  return {-2}
end
`;

/**
 * KEYS: (lock, owner entry, waiters) per lock; ARGV[1]: now, epoch ms (live waiters score ≥ it).
 * Replies one `readLock` reply per lock (toKeyState parses each).
 */
export const READ_KEYS_SCRIPT = defineScript<readonly [nowMs: number], unknown[]>(
  `${READ_KEY_LUA}${EXISTS_EITHER_LUA}${READ_LOCK_LUA}
local replies = {}
for index = 1, #KEYS, 3 do
  replies[(index + 2) / 3] = readLock(KEYS[index], KEYS[index + 1], KEYS[index + 2], ARGV[1])
end
return replies
`,
);

/**
 * The same read on one server of a Redis Cluster. A chunk's keys span slots, which a script may not
 * declare together (CROSSSLOT), so they travel in ARGV after `now`, each command touches one key
 * (allow-cross-slot-keys, Redis 7), and a key whose slot migrated away since SCAN returned it (an
 * error, caught) reads as absent here: the server now serving it reports it.
 */
export const READ_KEYS_ON_SHARD_SCRIPT = defineScript<readonly ScriptArg[], unknown[]>(
  `#!lua flags=no-writes,allow-cross-slot-keys
${READ_KEY_LUA}${EXISTS_EITHER_ON_SHARD_LUA}${READ_LOCK_LUA}
local replies = {}
for index = 2, #ARGV, 3 do
  local ok, reply = pcall(readLock, ARGV[index], ARGV[index + 1], ARGV[index + 2], ARGV[1])
  replies[#replies + 1] = ok and reply or {-2}
end
return replies
`,
);
/**
 * What each of `keys` holds on one node (`onClusterServer`: one primary of a cluster), in one script
 * call (the caller cuts chunks of a few hundred keys): a few O(1) commands per key (TYPE; PTTL and GET or HLEN and HGETALL; EXISTS of its owner
 * and waiters keys, and their reads when present).
 */
export async function readLockKeys(
  client: Redis,
  keys: readonly Buffer[],
  nowMs: number,
  onClusterServer = false,
): Promise<{ states: Array<NodeKeyState | null> }> {
  const replies = (
    onClusterServer
      ? await READ_KEYS_ON_SHARD_SCRIPT.run(client, [], [nowMs, ...keys.flatMap(ownershipKeys)])
      : await READ_KEYS_SCRIPT.run(client, keys.flatMap(ownershipKeys), [nowMs])
  ) as unknown[];
  return { states: keys.map((_, index) => toKeyState(replies[index])) };
}

/**
 * One key's `readKey` reply: [pttl, value] for a string, [pttl, [field, value, …]] for a hash;
 * `readLock` appends [owner, waiting, oldest] (see ownership.ts).
 */
export function toKeyState(reply: unknown): NodeKeyState | null {
  if (!Array.isArray(reply) || typeof reply[0] !== "number" || reply[0] === -2) return null;
  const [pttlMs, body, owner, waiting, oldest, listed] = reply as [number, unknown, ...unknown[]];
  const waiters = parseWaitersReply(waiting, oldest);
  const waiterList = parseWaiterList(listed);
  if (typeof body === "string") {
    // Issue 32 row 8: a value of no recognised lock format is no lock (skipped, never served).
    const format = stringLockFormat(body, pttlMs);
    if (format === null) return null;
    return {
      value: body,
      pttlMs,
      format,
      holdCount: null,
      owner: ownerOfValue(body) ?? parseOwnerReply(owner),
      waiters,
      ...(waiterList && { waiterList }),
    };
  }
  if (!Array.isArray(body)) return null;
  const fields: Record<string, string> = {};
  for (let index = 0; index + 1 < body.length; index += 2)
    fields[String(body[index])] = String(body[index + 1]);
  const holder = parseRedissonHash(fields);
  if (
    holder &&
    pttlMs < 0 &&
    !holder.value.split(",").every((field) => REDISSON_UUID_FIELD.test(field))
  )
    return null; // without a TTL only Redisson's own <uuid>:<thread> holders make a hash a lock
  return holder
    ? { ...holder, pttlMs, format: "redisson-hash", waiters, ...(waiterList && { waiterList }) }
    : null;
}
