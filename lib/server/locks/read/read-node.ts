import "server-only";
/**
 * Reads lock keys from one node for the live index: PTTL + GET (strings) or HGETALL (Redisson
 * hashes) for every key of a chunk, with the library's 1.x owner entry and waiters of each key read
 * in the same script. One script call per chunk instead of commands per key: ioredis spends ~10 µs
 * of JavaScript per command, so per-key pipelines cost the console more than Redis itself.
 */
import type { Cluster, Redis } from "ioredis";
import { defineScript, type ScriptArg } from "@redlock-console/redlock";
import { parseGroupCount } from "./group-count";
import { parseRedissonHash, type NodeKeyState } from "./key-state";
import { parseRedisSemaphore, REDISSON_UUID_FIELD, stringLockFormat } from "./lock-format";
import { KEY_NOT_READ, parseLongValue, READ_KEY_LUA } from "./read-key";
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
 * KEYS: (lock, owner entry, waiters) per lock; ARGV[1]: now, epoch ms (live waiters score ≥ it);
 * ARGV[2]: the call's byte allowance. Replies {value bytes touched, {readLock reply, …}}: the keys
 * are read in order until the allowance is spent (at least one), so one call stays short whatever
 * the values' sizes; the caller reads the rest in its next call (toKeyState parses each reply).
 */
export const READ_KEYS_SCRIPT = defineScript<
  readonly [nowMs: number, allowanceBytes: number],
  [number, unknown[]]
>(
  `${READ_KEY_LUA}${EXISTS_EITHER_LUA}${READ_LOCK_LUA}
local replies = {}
for index = 1, #KEYS, 3 do
  if index > 1 and touchedBytes >= tonumber(ARGV[2]) then break end
  replies[(index + 2) / 3] = readLock(KEYS[index], KEYS[index + 1], KEYS[index + 2], ARGV[1])
end
return {touchedBytes, replies}
`,
);

/**
 * The same read on one server of a Redis Cluster. A chunk's keys span slots, which a script may not
 * declare together (CROSSSLOT), so they travel in ARGV after `now`, each command touches one key
 * (allow-cross-slot-keys, Redis 7), and a key whose slot migrated away since SCAN returned it (an
 * error, caught) reads as absent here: the server now serving it reports it.
 */
export const READ_KEYS_ON_SHARD_SCRIPT = defineScript<readonly ScriptArg[], [number, unknown[]]>(
  `#!lua flags=no-writes,allow-cross-slot-keys
${READ_KEY_LUA}${EXISTS_EITHER_ON_SHARD_LUA}${READ_LOCK_LUA}
local replies = {}
for index = 3, #ARGV, 3 do
  if index > 3 and touchedBytes >= tonumber(ARGV[2]) then break end
  local ok, reply = pcall(readLock, ARGV[index], ARGV[index + 1], ARGV[index + 2], ARGV[1])
  replies[#replies + 1] = ok and reply or {-2}
end
return {touchedBytes, replies}
`,
);
/** What one read call found: the states of the first `states.length` keys asked, and its bytes. */
export interface KeysRead {
  readonly states: Array<NodeKeyState | null>;
  /**
   * Per state: whether the key exists on the node. A null state of a present key is a value that
   * is no lock (an application's): values written under it were not locks that came and went.
   */
  readonly present: boolean[];
  /** Value bytes the call read or hashed on the node (the byte budget's draw). */
  readonly touchedBytes: number;
}

/**
 * What the first keys of `keys` hold on one node (`onClusterServer`: one primary of a cluster), in
 * one script call: a few O(1) commands per key (TYPE; STRLEN, PTTL and GET or GETRANGE, or HLEN and
 * HGETALL; EXISTS of its owner and waiters keys, and their reads when present), until
 * `allowanceBytes` of values are read (at least one key): the caller asks again for the rest.
 */
export async function readLockKeys(
  // A Cluster client too, when every key shares one slot (a group's members: read-group.ts).
  client: Redis | Cluster,
  keys: readonly Buffer[],
  nowMs: number,
  onClusterServer = false,
  allowanceBytes = Number.MAX_SAFE_INTEGER,
): Promise<KeysRead> {
  const [touchedBytes, replies] = onClusterServer
    ? await READ_KEYS_ON_SHARD_SCRIPT.run(
        client,
        [],
        [nowMs, allowanceBytes, ...keys.flatMap(ownershipKeys)],
      )
    : await READ_KEYS_SCRIPT.run(client, keys.flatMap(ownershipKeys), [nowMs, allowanceBytes]);
  return { states: replies.map(toKeyState), present: replies.map(keyPresent), touchedBytes };
}

/** Whether a `readLock` reply's key exists on the node (a lock or not): only -2 means gone. */
export const keyPresent = (reply: unknown): boolean =>
  Array.isArray(reply) && typeof reply[0] === "number" && reply[0] !== -2;

/**
 * One key's `readLock` reply: [pttl, value, owner, waiting, oldest, long, listed, count] for a string (long: the
 * cut of a value over READ_VALUE_MAX_BYTES, read-key.ts), [pttl, [field, value, …], …] for a hash,
 * [pttl, [member, score, …], …, 'zset', …] for redis-semaphore's sorted set.
 */
export function toKeyState(reply: unknown): NodeKeyState | null {
  if (!Array.isArray(reply) || typeof reply[0] !== "number") return null;
  if (reply[0] === -2 || reply[0] === KEY_NOT_READ) return null;
  const [pttlMs, body, owner, waiting, oldest, long, listed, count] = reply as [
    number,
    unknown,
    ...unknown[],
  ];
  const waiters = parseWaitersReply(waiting, oldest);
  const waiterList = parseWaiterList(listed);
  const groupCount = parseGroupCount(count);
  if (typeof body === "string") {
    // Issue 32 row 8: a value of no recognised lock format is no lock (skipped, never served). A
    // cut value is judged by its first bytes (lock-format.ts).
    const format = stringLockFormat(body, pttlMs);
    if (format === null) return null;
    const longValue = parseLongValue(long);
    return {
      value: body,
      pttlMs,
      format,
      holdCount: null,
      owner: longValue ? longValue.owner : (ownerOfValue(body) ?? parseOwnerReply(owner)),
      waiters,
      ...(longValue && { cut: longValue.cut }),
      ...(waiterList && { waiterList }),
      ...(groupCount !== null && { groupCount }),
    };
  }
  if (!Array.isArray(body)) return null;
  if (long === "zset") {
    const holders = parseRedisSemaphore(body.map(String), pttlMs);
    return holders && { ...holders, pttlMs, format: "redis-semaphore", waiters };
  }
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
    ? {
        ...holder,
        pttlMs,
        format: "redisson-hash",
        waiters,
        ...(waiterList && { waiterList }),
        ...(groupCount !== null && { groupCount }),
      }
    : null;
}
