/**
 * A Redis Cluster as a lock node, in the browser: a second console (next start on its own port)
 * on four of the stack's masters plus a real 3-primary cluster shows the cluster as one node card
 * with its shards, reads a lock held on it, and force-releases it on every node, the cluster too.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { Cluster as IoCluster } from "ioredis";
import { NEXT_CLI } from "../scripts/next-build";
import { startCluster, type Cluster } from "../scripts/redis-cluster";
import { LockDetailPage } from "./pages/lock-detail-page";
import { LoginPage } from "./pages/login-page";
import { OverviewPage } from "./pages/overview-page";
import { E2E_PORT, readStack } from "./stack-file";
import { expect, test } from "./support/fixtures";

const PORT = E2E_PORT + 1;
let cluster: Cluster;
let clusterClient: IoCluster;
let server: ChildProcess;

test.use({ baseURL: `http://127.0.0.1:${PORT}` });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  cluster = await startCluster(3, 0);
  clusterClient = new IoCluster([...cluster.seeds]);
  clusterClient.on("error", () => undefined);
  const stack = readStack();
  const nodes = [
    ...stack.urls.slice(0, 4),
    `redis://${cluster.seeds[0]!.host}:${cluster.seeds[0]!.port}?cluster=true`,
  ];
  server = spawn(process.execPath, [NEXT_CLI, "start", "-p", String(PORT), "-H", "127.0.0.1"], {
    stdio: "inherit",
    env: {
      ...process.env,
      REDLOCK_NODES: nodes.join(","),
      CONSOLE_ADMIN_TOKEN: stack.adminToken,
      CONSOLE_READ_ONLY: "false",
      CONSOLE_PROBE_INTERVAL_MS: "0",
      LOG_LEVEL: "warn",
    },
  });
  for (let waitedMs = 0; ; waitedMs += 200) {
    const health = await fetch(`http://127.0.0.1:${PORT}/api/health`).catch(() => null);
    if (health?.ok) break;
    if (waitedMs > 60_000) throw new Error("the cluster console did not start");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await once(server, "exit");
  }
  clusterClient?.disconnect();
  await cluster?.stop();
});

test("a cluster node shows its shards, and a lock held on it is force-released everywhere", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  const overview = new OverviewPage(page);
  await overview.goto();
  const card = overview.nodeCard("node-5");
  await expect(card).toContainText("(cluster)");
  const shards = card.getByRole("list", { name: "node-5 shards" }).getByRole("listitem");
  await expect(shards).toHaveCount(3);
  for (const port of cluster.primaryPorts)
    await expect(card.getByLabel(`shard 127.0.0.1:${port} up`)).toBeVisible();
  await expect(card).toContainText("cluster ok");

  const value = randomBytes(20).toString("hex");
  await masters.setOn([0, 1, 2, 3], resource, value, 60_000);
  await clusterClient.set(resource, value, "PX", 60_000);

  await new LoginPage(page).login(stack.adminToken);
  const detail = new LockDetailPage(page);
  await detail.goto(resource);

  await detail.forceReleaseEverywhere(`cluster e2e ${resource}`, 5);
  expect(await clusterClient.get(resource)).toBeNull();
  expect((await masters.valuesOf(resource)).slice(0, 4)).toEqual([null, null, null, null]);
});
