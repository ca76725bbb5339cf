/**
 * What servers executed, read from INFO commandstats on the servers themselves, so counts do not
 * depend on any client's bookkeeping: the tests' and the benchmarks' one reading of it.
 */
import type { Redis } from "ioredis";

/** One command's totals since the server's last CONFIG RESETSTAT. */
export interface CommandStat {
  /** Times it ran; the commands a script runs count too. */
  calls: number;
  /** CPU time it took, in µs. */
  usec: number;
}

/** Per command (`config|resetstat` for a subcommand), summed over `servers`; none for one not run. */
export async function commandStats(
  servers: readonly Pick<Redis, "info">[],
): Promise<Record<string, CommandStat>> {
  const stats: Record<string, CommandStat> = {};
  for (const info of await Promise.all(servers.map((server) => server.info("commandstats"))))
    for (const [, command, calls, usec] of info.matchAll(
      /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm,
    )) {
      const stat = (stats[command!] ??= { calls: 0, usec: 0 });
      stat.calls += Number(calls);
      stat.usec += Number(usec);
    }
  return stats;
}

/** Calls per command, summed over `servers` (see commandStats). */
export async function callsPerCommand(
  servers: readonly Pick<Redis, "info">[],
): Promise<Record<string, number>> {
  const stats = await commandStats(servers);
  return Object.fromEntries(Object.entries(stats).map(([command, { calls }]) => [command, calls]));
}
