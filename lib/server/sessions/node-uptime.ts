import "server-only";
/**
 * A server's uptime, which it must say before it may prove a holder session gone (liveness.ts):
 * asked fresh each time, since a node counts toward "gone" only once up longer than the session
 * window, and a cached uptime would hide the restart it guards against. What must have held
 * continuously (`timeout` 0, the same primary) is node-watch.ts's.
 */
import type { Redis } from "ioredis";

export async function readUptimeS(server: Redis): Promise<number | null> {
  const info = await server.info("server");
  const match = /^uptime_in_seconds:(\d+)/m.exec(info);
  return match ? Number(match[1]) : null;
}
