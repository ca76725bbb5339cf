/** Server-side counters read with INFO, so command counts do not depend on any client's bookkeeping. */
import type { Redis } from "ioredis";

/** Total commands each server has executed (sum of `calls` in INFO commandstats), summed over nodes. */
export async function commandsExecuted(admins: readonly Redis[]): Promise<number> {
  const infos = await Promise.all(admins.map((admin) => admin.info("commandstats")));
  let total = 0;
  for (const info of infos)
    for (const match of info.matchAll(/calls=(\d+)/g)) total += Number(match[1]);
  // Minus our own INFO calls (one per node), so a quiet cluster reads as zero.
  return total - admins.length;
}

/** `redis_version` of the first node. */
export async function redisVersion(admin: Redis): Promise<string> {
  const info = await admin.info("server");
  return /redis_version:(\S+)/.exec(info)?.[1] ?? "unknown";
}
