/** Fresh ioredis clients for one library in one scenario, and the client-side queue probes. */
import { Redis, type RedisOptions } from "ioredis";

export interface ClientOptions {
  /** ioredis `enableAutoPipelining`: commands issued in one tick go out as one write. */
  autoPipelining?: boolean;
}

/** One client per master with ioredis defaults (the same for every library), connected and ready. */
export async function openClients(
  urls: readonly string[],
  options: ClientOptions = {},
): Promise<Redis[]> {
  const redisOptions: RedisOptions = { enableAutoPipelining: options.autoPipelining ?? false };
  const clients = urls.map((url) => new Redis(url, redisOptions));
  await Promise.all(
    clients.map((client) =>
      client.status === "ready"
        ? undefined
        : new Promise((resolve) => client.once("ready", resolve)),
    ),
  );
  return clients;
}

/** Drops the connections at once: queued commands of a paused node are rejected, not awaited. */
export function closeClients(clients: readonly Redis[]): void {
  for (const client of clients) client.disconnect();
}

interface QueueView {
  commandQueue?: { length: number };
  offlineQueue?: { length: number };
}

/** Commands sent (or queued) and not yet answered, summed over `clients`: what a stalled node piles up. */
export function pendingCommands(clients: readonly Redis[]): number {
  return clients.reduce((total, client) => {
    const view = client as unknown as QueueView;
    return total + (view.commandQueue?.length ?? 0) + (view.offlineQueue?.length ?? 0);
  }, 0);
}
