import "server-only";
/**
 * Reads lock keys from one node: SCAN with a bounded COUNT (never KEYS), then pipelined PTTL + GET,
 * and HGETALL only for keys that turned out to be hashes (Redisson). Keys under the reserved
 * `redlock:` prefix are auxiliary and skipped.
 */
import type { Redis } from "ioredis";
import { RESERVED_PREFIX } from "@/lib/api";
import { parseRedissonHash, type NodeKeyState } from "./fold";

const SCAN_COUNT = 1_000;
const PIPELINE_KEYS = 500;
const RESERVED = Buffer.from(RESERVED_PREFIX);

const isWrongType = (error: Error) => error.message.startsWith("WRONGTYPE");

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

/** PTTL and value of each key, in chunks of one pipeline each. */
export async function readKeys(
  client: Redis,
  keys: readonly Buffer[],
): Promise<Map<string, NodeKeyState>> {
  const states = new Map<string, NodeKeyState>();
  for (let start = 0; start < keys.length; start += PIPELINE_KEYS) {
    const chunk = keys.slice(start, start + PIPELINE_KEYS);
    const pipeline = client.pipeline();
    for (const key of chunk) pipeline.pttl(key).get(key);
    const replies = (await pipeline.exec()) ?? [];
    const hashKeys: Array<{ key: Buffer; pttlMs: number }> = [];
    chunk.forEach((key, index) => {
      const [pttlError, pttl] = replies[index * 2] ?? [];
      const [getError, value] = replies[index * 2 + 1] ?? [];
      // A pipeline resolves even when its commands time out: a non-type error means the node failed.
      if (pttlError) throw pttlError;
      if (getError && !isWrongType(getError)) throw getError;
      if (typeof pttl !== "number" || pttl === -2) return;
      if (getError) {
        hashKeys.push({ key, pttlMs: pttl });
        return;
      }
      if (typeof value === "string")
        states.set(key.toString("latin1"), {
          value,
          pttlMs: pttl,
          format: "string",
          holdCount: null,
        });
    });
    await readHashes(client, hashKeys, states);
  }
  return states;
}

async function readHashes(
  client: Redis,
  hashKeys: Array<{ key: Buffer; pttlMs: number }>,
  states: Map<string, NodeKeyState>,
) {
  if (hashKeys.length === 0) return;
  const pipeline = client.pipeline();
  for (const { key } of hashKeys) pipeline.hgetall(key);
  const replies = (await pipeline.exec()) ?? [];
  hashKeys.forEach(({ key, pttlMs }, index) => {
    const [error, fields] = replies[index] ?? [];
    if (error && !isWrongType(error)) throw error;
    if (error || !fields || typeof fields !== "object") return; // lists, sets…: not a lock
    const holder = parseRedissonHash(fields as Record<string, string>);
    if (holder) states.set(key.toString("latin1"), { ...holder, pttlMs, format: "redisson-hash" });
  });
}

export async function readNode(
  client: Redis,
  patterns: readonly string[],
  maxKeys: number,
): Promise<NodeScan> {
  const { keys, truncated } = await scanKeys(client, patterns, maxKeys);
  return { keys: await readKeys(client, keys), truncated };
}
