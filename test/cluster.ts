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

type ShardAddress = { port: number; id: string };

/** Each slot range with its primary, as CLUSTER SLOTS says through `client`. */
async function slotRanges(
  client: Redis | IoCluster,
): Promise<Array<{ from: number; to: number; primary: ShardAddress }>> {
  const ranges = (await client.cluster("SLOTS")) as unknown as Array<
    [number, number, [string, number, string]]
  >;
  return ranges.map(([from, to, [, port, id]]) => ({ from, to, primary: { port, id } }));
}

const servingIn = (ranges: Awaited<ReturnType<typeof slotRanges>>, slot: number) =>
  ranges.find(({ from, to }) => slot >= from && slot <= to)!.primary;

/** The primary (port and cluster node id) serving `slot`, as CLUSTER SLOTS says through `client`. */
export async function ownerOfSlot(client: Redis | IoCluster, slot: number): Promise<ShardAddress> {
  return servingIn(await slotRanges(client), slot);
}

/** The primary serving `slot` and another primary to move it to (one CLUSTER SLOTS read). */
export async function slotMove(
  client: Redis | IoCluster,
  slot: number,
): Promise<{ from: ShardAddress; to: ShardAddress }> {
  const ranges = await slotRanges(client);
  const from = servingIn(ranges, slot);
  const to = ranges.map(({ primary }) => primary).find((primary) => primary.port !== from.port)!;
  return { from, to };
}
