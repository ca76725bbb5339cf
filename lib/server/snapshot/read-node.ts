import "server-only";
/**
 * Reads lock keys from one node: SCAN with a bounded COUNT (never KEYS), then PTTL + GET (strings)
 * or HGETALL (Redisson hashes) for every key, batched, with the library's owner entry and waiters
 * of each key read in the same script. Keys under the reserved `redlock:` prefix are auxiliary and
 * skipped as locks.
 */
import type { Redis } from "ioredis";
import { defineScript } from "@redlock-console/redlock";
import { RESERVED_PREFIX } from "@/lib/api";
import { parseRedissonHash, type NodeKeyState } from "./fold";
import {
  ownerOfValue,
  ownershipKeys,
  parseOwnerReply,
  parseWaitersReply,
  READ_LOCK_LUA,
} from "./ownership";

// 10k keys per SCAN call: a 100k-key keyspace in ~10 round trips per node instead of ~100.
const SCAN_COUNT = 10_000;
const CHUNK_KEYS = 500;
const CHUNKS_IN_FLIGHT = 4;

/**
 * Lua `readKey(key)`: {PTTL, GET} for a string, {PTTL, HGETALL} for a hash, {-2} for anything else
 * or gone. Shared by the snapshot's chunk script and the one-resource read (read-one.ts).
 */
export const READ_KEY_LUA = `
local function readKey(key)
  local kind = redis.call('TYPE', key)['ok']
  if kind == 'string' then
    return {redis.call('PTTL', key), redis.call('GET', key)}
  elseif kind == 'hash' then
    return {redis.call('PTTL', key), redis.call('HGETALL', key)}
  end
  return {-2}
end
`;

/**
 * KEYS: (lock, owner entry, waiters) per lock; ARGV[1]: now, epoch ms (live waiters score ≥ it).
 * Replies one `readLock` reply per lock (toKeyState parses each).
 */
export const READ_KEYS_SCRIPT = defineScript<readonly [nowMs: number], unknown[]>(
  `${READ_KEY_LUA}${READ_LOCK_LUA}
local replies = {}
for index = 1, #KEYS, 3 do
  replies[(index + 2) / 3] = readLock(KEYS[index], KEYS[index + 1], KEYS[index + 2], ARGV[1])
end
return replies
`,
);
const RESERVED = Buffer.from(RESERVED_PREFIX);

export interface NodeScan {
  /** Key (as a latin1 string of its exact bytes) -> what this node holds. */
  readonly keys: Map<string, NodeKeyState>;
  /** True when the node had more matching keys than the scan budget. */
  readonly truncated: boolean;
}

/** Every matching key of one node, at most `maxKeys`. */
async function scanKeys(
  client: Redis,
  patterns: readonly string[],
  maxKeys: number,
): Promise<{ keys: Buffer[]; truncated: boolean }> {
  const seen = new Map<string, Buffer>();
  for (const pattern of patterns) {
    let cursor = "0";
    do {
      const [next, batch] = await client.scanBuffer(cursor, "MATCH", pattern, "COUNT", SCAN_COUNT);
      cursor = next.toString();
      for (const key of batch) {
        if (key.subarray(0, RESERVED.length).equals(RESERVED)) continue;
        seen.set(key.toString("latin1"), key);
        if (seen.size >= maxKeys) return { keys: [...seen.values()], truncated: true };
      }
    } while (cursor !== "0");
  }
  return { keys: [...seen.values()], truncated: false };
}

/**
 * PTTL and value of each key. One script call per chunk of keys instead of two pipelined commands
 * per key: ioredis spends ~10 µs of JavaScript per command, so at 10,000 keys on five nodes the
 * per-key pipeline cost more than Redis itself; a chunk's script runs well under a millisecond.
 */
async function readKeys(
  client: Redis,
  keys: readonly Buffer[],
): Promise<Map<string, NodeKeyState>> {
  const chunks: Buffer[][] = [];
  for (let start = 0; start < keys.length; start += CHUNK_KEYS)
    chunks.push(keys.slice(start, start + CHUNK_KEYS));
  // A few chunks in flight per node, not all at once: each script call then waits behind a few
  // others at most, so none outlives the per-command timeout however many keys there are.
  const replies: unknown[][] = [];
  let next = 0;
  const readChunks = async () => {
    while (next < chunks.length) {
      const index = next++;
      const keys = chunks[index]!.flatMap(ownershipKeys);
      replies[index] = await READ_KEYS_SCRIPT.run(client, keys, [Date.now()]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CHUNKS_IN_FLIGHT, chunks.length) }, readChunks));
  const states = new Map<string, NodeKeyState>();
  chunks.forEach((chunk, chunkIndex) => {
    chunk.forEach((key, index) => {
      const state = toKeyState(replies[chunkIndex]![index]);
      if (state) states.set(key.toString("latin1"), state);
    });
  });
  return states;
}

/**
 * One key's `readKey` reply: [pttl, value] for a string, [pttl, [field, value, …]] for a hash;
 * `readLock` appends [owner, waiting, oldest] (see ownership.ts).
 */
export function toKeyState(reply: unknown): NodeKeyState | null {
  if (!Array.isArray(reply) || typeof reply[0] !== "number" || reply[0] === -2) return null;
  const [pttlMs, body, owner, waiting, oldest] = reply as [number, unknown, ...unknown[]];
  const waiters = parseWaitersReply(waiting, oldest);
  if (typeof body === "string")
    return {
      value: body,
      pttlMs,
      format: "string",
      holdCount: null,
      owner: ownerOfValue(body) ?? parseOwnerReply(owner),
      waiters,
    };
  if (!Array.isArray(body)) return null;
  const fields: Record<string, string> = {};
  for (let index = 0; index + 1 < body.length; index += 2)
    fields[String(body[index])] = String(body[index + 1]);
  const holder = parseRedissonHash(fields);
  return holder ? { ...holder, pttlMs, format: "redisson-hash", waiters } : null;
}

export async function readNode(
  client: Redis,
  patterns: readonly string[],
  maxKeys: number,
): Promise<NodeScan> {
  const { keys, truncated } = await scanKeys(client, patterns, maxKeys);
  return { keys: await readKeys(client, keys), truncated };
}
