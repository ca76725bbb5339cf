/**
 * A one-process Redis Cluster for tests: a `--cluster-enabled` redis-server that owns all 16384
 * slots, so keys are routed and CROSSSLOT is enforced exactly as on a real cluster's shard.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { freePort, waitForPong } from "@/scripts/redis-masters";

export interface ClusterNode {
  readonly port: number;
  /** A plain connection to the node (no cluster routing), for CLUSTER KEYSLOT and raw EVALs. */
  readonly client: Redis;
}

async function waitForClusterOk(client: Redis, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const info = await client.cluster("INFO").catch(() => "");
    if (String(info).includes("cluster_state:ok")) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("The test cluster did not reach cluster_state:ok.");
}

/** Starts one cluster-enabled redis-server owning every slot before the file's tests, stops it after. */
export function useSingleNodeCluster(): () => ClusterNode {
  let child: ChildProcess | undefined;
  let node: ClusterNode | undefined;
  beforeAll(async () => {
    const port = await freePort();
    const dir = path.resolve(`.data/test-cluster/${process.pid}-${port}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    child = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--save",
        "",
        "--cluster-enabled",
        "yes",
        // Alone, a node never learns its own address, and CLUSTER SLOTS would give clients none.
        "--cluster-announce-ip",
        "127.0.0.1",
      ],
      { stdio: "ignore" },
    );
    await waitForPong(port, 10_000);
    const client = new Redis({ port, host: "127.0.0.1" });
    await client.cluster("ADDSLOTSRANGE", 0, 16_383);
    await waitForClusterOk(client);
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
