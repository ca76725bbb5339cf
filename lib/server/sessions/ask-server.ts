import "server-only";
/**
 * What read-session.ts asks each server that serves session keys, once for all of them: its uptime,
 * its `timeout` (read again now: node-watch.ts), which heartbeat connections are still open and, on
 * a cluster, its node id; and which of a cluster's primaries serves a key.
 */
import type { Cluster, Redis } from "ioredis";
import { clusterSlot } from "@redlock-console/redlock";
import { readUptimeS } from "./node-uptime";
import { observeTimeout } from "./node-watch";

/** The primary serving `key`'s slot by the cluster client's slot map; null until it has one. */
export function primaryOwning(cluster: Cluster, key: string): Redis | null {
  const owner = cluster.slots[clusterSlot(key)]?.[0];
  if (owner === undefined) return null;
  return (
    cluster
      .nodes("master")
      .find((server) => `${server.options.host}:${server.options.port}` === owner) ?? null
  );
}

/** Which of `clientIds` the server lists as connected; null when it cannot tell (an error, ACLs). */
async function connectedClients(server: Redis, clientIds: number[]): Promise<Set<number> | null> {
  if (clientIds.length === 0) return new Set();
  try {
    const list = String(await server.client("LIST", "ID", ...clientIds));
    return new Set([...list.matchAll(/^id=(\d+) /gm)].map((match) => Number(match[1])));
  } catch {
    return null;
  }
}

/** What one server says for all the session keys it serves. */
export interface ServerAnswer {
  readonly uptimeS: number | null;
  readonly timeoutZeroSinceMs: number | null;
  readonly connected: Set<number> | null;
  /** CLUSTER MYID (a cluster node's primary), null otherwise or unknown. */
  readonly primaryId: string | null;
}

export async function askServer(
  server: Redis,
  clientIds: number[],
  cluster: boolean,
): Promise<ServerAnswer> {
  const [uptimeS, timeoutZeroSinceMs, connected, primaryId] = await Promise.all([
    readUptimeS(server).catch(() => null),
    observeTimeout(server),
    connectedClients(server, clientIds),
    cluster ? server.cluster("MYID").then(String, () => null) : null,
  ]);
  return { uptimeS, timeoutZeroSinceMs, connected, primaryId };
}
