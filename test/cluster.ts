/**
 * Redis Clusters for tests (scripts/redis-cluster.ts starts them): a one-process cluster that owns
 * every slot, so keys are routed and CROSSSLOT is enforced exactly as on a real cluster's shard, and
 * real multi-shard clusters started before a file's tests.
 */
import type { ChildProcess } from "node:child_process";
import { Redis, type Cluster as IoCluster } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { uniqueFreePorts, waitForPong } from "@/scripts/redis-masters";
import {
  spawnClusterNode,
  startCluster,
  waitForClusterOk,
  type Cluster,
} from "@/scripts/redis-cluster";

export { startCluster, type Cluster };

export interface ClusterNode {
  readonly port: number;
  /** A plain connection to the node (no cluster routing), for CLUSTER KEYSLOT and raw EVALs. */
  readonly client: Redis;
}

/** Starts one cluster-enabled redis-server owning every slot before the file's tests, stops it after. */
export function useSingleNodeCluster(): () => ClusterNode {
  let child: ChildProcess | undefined;
  let node: ClusterNode | undefined;
  beforeAll(async () => {
    const [port] = (await uniqueFreePorts(1)) as [number];
    child = spawnClusterNode(port);
    await waitForPong(port, 10_000);
    const client = new Redis({ port, host: "127.0.0.1" });
    await client.cluster("ADDSLOTSRANGE", 0, 16_383);
    await waitForClusterOk([port], 10_000);
    node = { port, client };
  });
  afterAll(async () => {
    node?.client.disconnect();
    child?.kill("SIGKILL");
  });
  return () => {
    if (!node) throw new Error("test cluster not started");
    return node;
  };
}

/** Starts the clusters before the file's tests and stops them after. */
export function useClusters(
  shapes: ReadonlyArray<{ primaries: number; replicas?: number }>,
): () => Cluster[] {
  let clusters: Cluster[] = [];
  beforeAll(async () => {
    clusters = await Promise.all(
      shapes.map((shape) => startCluster(shape.primaries, shape.replicas ?? 0)),
    );
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clusters.map((cluster) => cluster.stop()));
  });
  return () => {
    if (clusters.length === 0) throw new Error("clusters not started");
    return clusters;
  };
}

/** The primary (port and cluster node id) serving `slot`, as CLUSTER SLOTS says through `client`. */
export async function ownerOfSlot(
  client: Redis | IoCluster,
  slot: number,
): Promise<{ port: number; id: string }> {
  const shards = (await client.cluster("SLOTS")) as unknown as Array<
    [number, number, [string, number, string]]
  >;
  const shard = shards.find(([from, to]) => slot >= from && slot <= to)!;
  return { port: shard[2][1], id: shard[2][2] };
}

/** The primary serving `slot` and another primary to move it to. */
export async function slotMove(
  client: Redis | IoCluster,
  slot: number,
): Promise<{ from: { port: number; id: string }; to: { port: number; id: string } }> {
  const from = await ownerOfSlot(client, slot);
  const shards = (await client.cluster("SLOTS")) as unknown as Array<
    [number, number, [string, number, string]]
  >;
  const to = shards
    .map(([, , [, port, id]]) => ({ port, id }))
    .find((shard) => shard.port !== from.port)!;
  return { from, to };
}
