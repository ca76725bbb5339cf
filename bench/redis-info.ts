/** Server-side counters read with INFO, so command counts do not depend on any client's bookkeeping. */
import type { Redis } from "ioredis";
import { callsPerCommand } from "@/scripts/command-stats";

/** Total commands each server has executed (sum of `calls` in INFO commandstats), summed over nodes. */
export async function commandsExecuted(admins: readonly Redis[]): Promise<number> {
  const calls = Object.values(await callsPerCommand(admins));
  const total = calls.reduce((sum, count) => sum + count, 0);
  // Minus our own INFO calls (one per node), so a quiet cluster reads as zero.
  return total - admins.length;
}

/** `redis_version` of the first node. */
export async function redisVersion(admin: Redis): Promise<string> {
  const info = await admin.info("server");
  return /redis_version:(\S+)/.exec(info)?.[1] ?? "unknown";
}
