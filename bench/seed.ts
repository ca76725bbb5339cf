/** Fills the masters for the console scenarios: unrelated keys to scan past, and held locks. */
import type { Redis } from "ioredis";
import { encodeValue } from "@/lib/redlock/value";

const BATCH = 1_000;

/** `count` application hashes `<prefix><i>` per node (three fields, no TTL): what LOCK_MATCH=* must skip. */
export async function seedOtherHashes(
  admins: readonly Redis[],
  prefix: string,
  count: number,
): Promise<void> {
  await Promise.all(
    admins.map(async (admin) => {
      for (let start = 0; start < count; start += BATCH) {
        const pipeline = admin.pipeline();
        for (let index = start; index < Math.min(count, start + BATCH); index += 1)
          pipeline.hset(`${prefix}${index}`, "name", "order", "status", "open", "total", index);
        await pipeline.exec();
      }
    }),
  );
}

/**
 * Locks `<prefix><from>` … `<prefix><to - 1>` on every node, each with its own 40-hex value, as a
 * Redlock holder would; `withOwner`: as this library writes them (`rl1:` with owner labels and a
 * holder session), as a fleet of our library's callers would leave them.
 */
export async function seedLocks(
  admins: readonly Redis[],
  prefix: string,
  from: number,
  to: number,
  ttlMs: number,
  withOwner = false,
): Promise<void> {
  const acquiredAtMs = Date.now();
  const value = (index: number) => {
    const token = index.toString(16).padStart(40, "0");
    if (!withOwner) return token;
    const labels = {
      host: `web-${index % 40}`,
      pid: String(1000 + (index % 7)),
      service: "billing",
    };
    const session = index.toString(16).padStart(32, "0");
    return encodeValue(token, JSON.stringify(labels), acquiredAtMs, ttlMs, session);
  };
  await Promise.all(
    admins.map(async (admin) => {
      for (let start = from; start < to; start += BATCH) {
        const pipeline = admin.pipeline();
        for (let index = start; index < Math.min(to, start + BATCH); index += 1)
          pipeline.set(`${prefix}${index}`, value(index), "PX", ttlMs);
        await pipeline.exec();
      }
    }),
  );
}

/**
 * Per 100 keys: 1 lock `orders:<i>` (a 40-hex token, PX 2 h), and 99 application keys of the
 * shapes a shared master holds — cache pages and sessions (`SET … EX`, some under the locks' own
 * prefix), user hashes, feeds (sorted sets) and queues (lists). Generated on the server: 1M keys
 * per master in seconds. TTLs of 2 h, so nothing expires while a bench watches.
 */
const APP_KEYS_SCRIPT = `
local from, to = tonumber(ARGV[1]), tonumber(ARGV[2])
local page = string.rep('<div class="row">item</div>', 4)
for i = from, to - 1 do
  local kind = i % 100
  if kind == 0 then
    redis.call('SET', 'orders:' .. i, string.format('%040x', i), 'PX', 7200000)
  elseif kind <= 35 then
    redis.call('SET', 'cache:page:' .. i, page .. i, 'EX', 7200)
  elseif kind <= 45 then
    redis.call('SET', 'orders:' .. i .. ':view', '{"id":' .. i .. ',"status":"open"}', 'EX', 7200)
  elseif kind <= 75 then
    redis.call('HSET', 'user:' .. i, 'name', 'user ' .. i, 'email', 'u' .. i .. '@example.com', 'plan', 'pro', 'createdAt', '2026-01-01')
  elseif kind <= 90 then
    redis.call('SET', 'session:' .. string.format('%08x', i * 2654435761 % 4294967296) .. i, '{"user":' .. i .. ',"csrf":"abc"}', 'EX', 7200)
  elseif kind <= 96 then
    redis.call('ZADD', 'feed:' .. i, 1, 'a', 2, 'b', 3, 'c', 4, 'd')
  else
    redis.call('RPUSH', 'queue:jobs:' .. i, 'job-1', 'job-2', 'job-3')
  end
end
return to - from`;
const SCRIPT_CHUNK = 20_000;

/** `count` keys per node of APP_KEYS_SCRIPT's mix (1% locks): returns the lock keys per node. */
export async function seedAppKeys(admins: readonly Redis[], count: number): Promise<number> {
  await Promise.all(
    admins.map(async (admin) => {
      for (let start = 0; start < count; start += SCRIPT_CHUNK)
        await admin.eval(APP_KEYS_SCRIPT, 0, start, Math.min(count, start + SCRIPT_CHUNK));
    }),
  );
  return Math.ceil(count / 100);
}
