import "server-only";
/**
 * Reads lock keys from one node: SCAN with a bounded COUNT (never KEYS), then PTTL + GET (strings)
 * or HGETALL (Redisson hashes) for every key, batched. Keys under the reserved `redlock:` prefix
 * are auxiliary and skipped.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { RESERVED_PREFIX } from "@/lib/api";
import { parseRedissonHash, type NodeKeyState } from "./fold";

const SCAN_COUNT = 1_000;
const CHUNK_KEYS = 500;

/** Per key: {PTTL, GET} for strings, {PTTL, HGETALL} for hashes, {-2} for anything else or gone. */
const READ_KEYS_SCRIPT = `
local replies = {}
for index, key in ipairs(KEYS) do
  local kind = redis.call('TYPE', key)['ok']
  if kind == 'string' then
    replies[index] = {redis.call('PTTL', key), redis.call('GET', key)}
  elseif kind == 'hash' then
    replies[index] = {redis.call('PTTL', key), redis.call('HGETALL', key)}
  else
    replies[index] = {-2}
  end
end
return replies
`;
const READ_KEYS_SHA = createHash("sha1").update(READ_KEYS_SCRIPT).digest("hex");
const RESERVED = Buffer.from(RESERVED_PREFIX);

export interface NodeScan {
  /** Key (as a latin1 string of its exact bytes) -> what this node holds. */
  readonly keys: Map<string, NodeKeyState>;
  /** True when the node had more matching keys than the scan budget. */
  readonly truncated: boolean;
}

/** Every matching key of one node, at most `maxKeys`. */
export async function scanKeys(
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
export async function readKeys(
  client: Redis,
  keys: readonly Buffer[],
): Promise<Map<string, NodeKeyState>> {
  const chunks: Buffer[][] = [];
  for (let start = 0; start < keys.length; start += CHUNK_KEYS)
    chunks.push(keys.slice(start, start + CHUNK_KEYS));
  const replies = await Promise.all(chunks.map((chunk) => readChunk(client, chunk)));
  const states = new Map<string, NodeKeyState>();
  chunks.forEach((chunk, chunkIndex) => {
    chunk.forEach((key, index) => {
      const state = toKeyState(replies[chunkIndex]![index]);
      if (state) states.set(key.toString("latin1"), state);
    });
  });
  return states;
}

async function readChunk(client: Redis, chunk: readonly Buffer[]): Promise<unknown[]> {
  try {
    return (await client.evalsha(READ_KEYS_SHA, chunk.length, ...chunk)) as unknown[];
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
    return (await client.eval(READ_KEYS_SCRIPT, chunk.length, ...chunk)) as unknown[];
  }
}

/** One key's script reply: [pttl, value] for a string, [pttl, [field, value, …]] for a hash. */
function toKeyState(reply: unknown): NodeKeyState | null {
  if (!Array.isArray(reply) || typeof reply[0] !== "number" || reply[0] === -2) return null;
  const [pttlMs, body] = reply as [number, unknown];
  if (typeof body === "string") return { value: body, pttlMs, format: "string", holdCount: null };
  if (!Array.isArray(body)) return null;
  const fields: Record<string, string> = {};
  for (let index = 0; index + 1 < body.length; index += 2)
    fields[String(body[index])] = String(body[index + 1]);
  const holder = parseRedissonHash(fields);
  return holder ? { ...holder, pttlMs, format: "redisson-hash" } : null;
}

export async function readNode(
  client: Redis,
  patterns: readonly string[],
  maxKeys: number,
): Promise<NodeScan> {
  const { keys, truncated } = await scanKeys(client, patterns, maxKeys);
  return { keys: await readKeys(client, keys), truncated };
}
