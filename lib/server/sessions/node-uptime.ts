import "server-only";
/**
 * A server's `uptime_in_seconds`, asked fresh each time: a node counts toward "gone" only once up
 * longer than the session window, and a cached uptime would hide the restart it guards against.
 */
import type { Redis } from "ioredis";

export async function readUptimeS(server: Redis): Promise<number | null> {
  const info = await server.info("server");
  const match = /^uptime_in_seconds:(\d+)/m.exec(info);
  return match ? Number(match[1]) : null;
}
