/**
 * Real Redis Clusters on loopback, for tests and for trying the console on one: `--cluster-enabled`
 * redis-servers on free ports, joined by `redis-cli --cluster create`.
 *
 *   npx tsx scripts/redis-cluster.ts [primaries=3] [replicas=0]
 *
 * starts one and prints its `REDLOCK_NODES` entry; Ctrl-C stops it. Data lives under
 * .data/test-cluster/ and is thrown away.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Redis } from "ioredis";
import { spawnRedisServer, uniqueFreePorts, waitForPong } from "./redis-masters";

/** A `--cluster-enabled` redis-server on loopback `port`, with its own empty data directory. */
export function spawnClusterNode(port: number, extraArgs: readonly string[] = []): ChildProcess {
  const dir = path.resolve(`.data/test-cluster/${process.pid}-${port}`);
  rmSync(dir, { recursive: true, force: true });
  return spawnRedisServer(port, dir, [
    "--cluster-enabled",
    "yes",
    // Alone, a node never learns its own address, and CLUSTER SLOTS would give clients none.
    "--cluster-announce-ip",
    "127.0.0.1",
    ...extraArgs,
  ]);
}

export interface Cluster {
  /** Every node's port, primaries first. */
  readonly ports: readonly number[];
  /** Ports of the nodes started as primaries (replicas may be promoted later). */
  readonly primaryPorts: readonly number[];
  readonly replicaPorts: readonly number[];
  /** Seed addresses for a cluster client. */
  readonly seeds: ReadonlyArray<{ host: string; port: number }>;
  pause(port: number): void;
  resume(port: number): void;
  /** SIGKILL; the node stays down. */
  kill(port: number): Promise<void>;
  stop(): Promise<void>;
}

/** Every node reports cluster_state:ok and knows every other one. */
export async function waitForClusterOk(ports: readonly number[], timeoutMs = 20_000) {
  const clients = ports.map((port) => new Redis({ port, host: "127.0.0.1", lazyConnect: false }));
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const infos = await Promise.all(
        clients.map((client) => client.cluster("INFO").then(String, () => "")),
      );
      const ok = infos.every(
        (info) =>
          info.includes("cluster_state:ok") && info.includes(`cluster_known_nodes:${ports.length}`),
      );
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`cluster on ${ports.join(",")} did not agree in ${timeoutMs} ms`);
  } finally {
    for (const client of clients) client.disconnect();
  }
}

/** SIGKILL (after SIGCONT, in case it is paused), resolved once it exited; nothing if it already has. */
async function killNow(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGCONT");
  child.kill("SIGKILL");
  await exited;
}

/**
 * A real Redis Cluster of `primaries` shards (each with `replicas` replicas), made by
 * `redis-cli --cluster create` from `--cluster-enabled` redis-servers on free loopback ports.
 */
export async function startCluster(primaries = 3, replicas = 0): Promise<Cluster> {
  const count = primaries * (1 + replicas);
  // Two free ports per node: its own and its cluster bus (by default port + 10000, which may be
  // taken, or past 65535 for an ephemeral port): `--cluster-port` names the bus explicitly.
  const allPorts = await uniqueFreePorts(2 * count);
  const ports = allPorts.slice(0, count);
  const busPorts = allPorts.slice(count);
  const children = new Map<number, ChildProcess>();
  for (const [index, port] of ports.entries()) {
    const child = spawnClusterNode(port, [
      "--appendonly",
      "no",
      "--cluster-node-timeout",
      "1500",
      "--cluster-port",
      String(busPorts[index]),
    ]);
    children.set(port, child);
  }
  await Promise.all(ports.map((port) => waitForPong(port, 10_000)));
  const created = spawn(
    "redis-cli",
    [
      "--cluster",
      "create",
      ...ports.map((port) => `127.0.0.1:${port}`),
      "--cluster-replicas",
      String(replicas),
      "--cluster-yes",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  created.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  created.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => created.once("exit", resolve));
  if (code !== 0) throw new Error(`redis-cli --cluster create failed (${code}):\n${output}`);
  await waitForClusterOk(ports);
  // redis-cli assigns the first `primaries` addresses as primaries.
  const primaryPorts = ports.slice(0, primaries);
  const signal = (port: number, name: NodeJS.Signals) => children.get(port)?.kill(name);
  return {
    ports,
    primaryPorts,
    replicaPorts: ports.slice(primaries),
    seeds: primaryPorts.map((port) => ({ host: "127.0.0.1", port })),
    pause: (port) => signal(port, "SIGSTOP"),
    resume: (port) => signal(port, "SIGCONT"),
    async kill(port) {
      const child = children.get(port);
      if (child) await killNow(child);
    },
    async stop() {
      await Promise.all([...children.values()].map(killNow));
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [primaries = 3, replicas = 0] = process.argv.slice(2).map(Number);
  const cluster = await startCluster(primaries, replicas);
  const seed = cluster.seeds[0]!;
  console.log(
    `Redis Cluster of ${primaries} primaries (${replicas} replicas each) on ports ${cluster.ports.join(", ")}`,
  );
  console.log(`REDLOCK_NODES entry: redis://${seed.host}:${seed.port}?cluster=true`);
  const stop = () => void cluster.stop().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
