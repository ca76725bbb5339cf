/** Fills the masters for the console scenarios: unrelated keys to scan past, and held locks. */
import type { Redis } from "ioredis";

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

/** Locks `<prefix><from>` … `<prefix><to - 1>` on every node, each with its own 40-hex value, as a Redlock holder would. */
export async function seedLocks(
  admins: readonly Redis[],
  prefix: string,
  from: number,
  to: number,
  ttlMs: number,
): Promise<void> {
  const value = (index: number) => index.toString(16).padStart(40, "0");
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
