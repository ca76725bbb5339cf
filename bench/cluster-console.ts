/**
 * `npx tsx bench/cluster-console.ts`: the console on a Redis Cluster lock node at scale. Four single
 * masters and one 3-primary cluster (scripts/redis-cluster.ts), each lock node holding LOCKS locks
 * among OTHER other keys (the cluster's spread over its primaries by slot), a console at its
 * defaults (CONSOLE_SCAN_BUDGET_PER_S per server). Measures:
 * - the first listing: until the index is complete, and the cluster primaries' listing rate (keys/s
 *   per primary: within the budget);
 * - write → visible: a lock SET on all five nodes until its row is in the index, p50/p99 of 100;
 * - what watching costs the cluster's primaries while nothing changes, with 1 and with 50 viewers
 *   reading pages (commands/s, INFO commandstats, the bench's own INFO calls excluded).
 * Writes bench/results/cluster-console.json. BENCH_QUICK=1: a tenth of the keys.
 */
import { randomBytes } from "node:crypto";
import { register } from "node:module";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { clusterSlot } from "@/lib/redlock/keys";
import { startCluster } from "@/scripts/redis-cluster";
import { startMasters } from "@/scripts/redis-masters";
import { commandsExecuted } from "./redis-info";
import { writeResults } from "./report";
import { median, percentile } from "./stats";

register("./server-only-hooks.mjs", import.meta.url);
const { createConsole } = await import("@/lib/server/console");
const { configFor } = await import("@/lib/server/config");
const { NEEDED_EVENT_FLAGS } = await import("@/lib/server/locks/watch/events/event-flags");
const { pageOf } = await import("@/lib/server/locks/pages/page");

const scale = process.env.BENCH_QUICK ? 0.1 : 1;
const LOCKS = Math.round(50_000 * scale);
const OTHER = Math.round(200_000 * scale);
const BATCH = 5_000;
const log = (message: string) => process.stderr.write(`[cluster-console] ${message}\n`);

/** Writes `count` keys named by `name(i)` with `value`, routed to the server owning each key's slot. */
async function seed(
  route: (key: string) => Redis,
  count: number,
  name: (index: number) => string,
  ttlMs: number | null,
): Promise<void> {
  for (let start = 0; start < count; start += BATCH) {
    const pipelines = new Map<Redis, ReturnType<Redis["pipeline"]>>();
    for (let index = start; index < Math.min(count, start + BATCH); index += 1) {
      const key = name(index);
      const server = route(key);
      let pipeline = pipelines.get(server);
      if (!pipeline) pipelines.set(server, (pipeline = server.pipeline()));
      if (ttlMs === null) pipeline.set(key, "x".repeat(64));
      else pipeline.set(key, `${index.toString(16).padStart(40, "0")}`, "PX", ttlMs);
    }
    await Promise.all([...pipelines.values()].map((pipeline) => pipeline.exec()));
  }
}

const masters = await startMasters({ count: 4, dataDir: ".data/bench-cluster-console" });
const cluster = await startCluster(3, 0);
const singles = masters.urls.map((url) => new Redis(url));
const primaries = cluster.primaryPorts.map((port) => new Redis({ port, host: "127.0.0.1" }));
for (const primary of primaries)
  await primary.config("SET", "notify-keyspace-events", NEEDED_EVENT_FLAGS);
const slotOwner: Redis[] = [];
for (const [start, end, [, port]] of (await primaries[0]!.cluster("SLOTS")) as unknown as Array<
  [number, number, [string, number]]
>)
  for (let slot = start; slot <= end; slot += 1)
    slotOwner[slot] = primaries[cluster.primaryPorts.indexOf(port)]!;
const toCluster = (key: string) => slotOwner[clusterSlot(key)]!;

const seedStarted = performance.now();
for (const [route, label] of [
  ...singles.map((single) => [() => single, "single"] as const),
  [toCluster, "cluster"] as const,
]) {
  await seed(route, LOCKS, (index) => `lock:${index}`, 3_600_000);
  await seed(route, OTHER, (index) => `data:${index}`, null);
  log(`seeded ${label}: ${LOCKS} locks among ${OTHER} other keys`);
}
log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

const seedPort = cluster.primaryPorts[0]!;
const ctx = createConsole(
  configFor([...masters.urls, `redis://127.0.0.1:${seedPort}?cluster=true`], {
    logLevel: "silent",
    probeIntervalMs: 0,
    lockMatch: ["lock:*"],
  }),
);
try {
  const listingStarted = performance.now();
  while (!ctx.index.complete || ctx.index.total() < LOCKS) await sleep(50);
  const firstListingS = (performance.now() - listingStarted) / 1000;
  const clusterWatch = ctx.index.clusterOf(4)!;
  const perPrimary = clusterWatch.primaries.map((primary) => {
    const status = primary.watch.status();
    return {
      address: primary.address,
      lockKeys: status.lockKeys,
      listingMs: status.listingMs,
      keysPerS: status.listingMs
        ? Math.round(((LOCKS + OTHER) / 3 / status.listingMs) * 1000)
        : null,
    };
  });
  log(`first listing complete in ${firstListingS.toFixed(1)} s (${ctx.index.total()} rows)`);
  for (const primary of perPrimary)
    log(
      `  primary ${primary.address}: ${primary.lockKeys} locks, listed in ${primary.listingMs} ms (~${primary.keysPerS} keys/s)`,
    );

  const visibleMs: number[] = [];
  for (let sample = 0; sample < 100; sample += 1) {
    const resource = `lock:bench-new:${sample}`;
    const value = randomBytes(20).toString("hex");
    const writtenAt = performance.now();
    await Promise.all([
      ...singles.map((single) => single.set(resource, value, "PX", 60_000)),
      toCluster(resource).set(resource, value, "PX", 60_000),
    ]);
    while (ctx.index.row(resource, Date.now())?.quorum !== 5) await sleep(1);
    visibleMs.push(performance.now() - writtenAt);
  }
  log(
    `write → visible: p50 ${median(visibleMs).toFixed(1)} ms, p99 ${percentile(visibleMs, 99).toFixed(1)} ms`,
  );

  /** The primaries' commands/s while `viewers` each fetch a page every second and nothing changes. */
  const idle = async (viewers: number) => {
    const before = await commandsExecuted(primaries);
    const startedAt = performance.now();
    const view = async () => {
      while (performance.now() - startedAt < 10_000) {
        await pageOf(ctx.index, { limit: 100 });
        await sleep(1_000);
      }
    };
    await Promise.all(Array.from({ length: viewers }, view));
    const seconds = (performance.now() - startedAt) / 1000;
    // Minus the INFO of the second measurement (one per primary), counted before it returned.
    return ((await commandsExecuted(primaries)) - before - primaries.length) / seconds;
  };
  const idleWith1 = await idle(1);
  const idleWith50 = await idle(50);
  log(
    `cluster primaries' commands/s while idle: ${idleWith1.toFixed(1)} with 1 viewer, ${idleWith50.toFixed(1)} with 50 (3 primaries together)`,
  );
  writeResults(new URL("./results/cluster-console.json", import.meta.url).pathname, {
    locksPerNode: LOCKS,
    otherKeysPerNode: OTHER,
    firstListingS,
    perPrimary,
    writeToVisibleP50Ms: median(visibleMs),
    writeToVisibleP99Ms: percentile(visibleMs, 99),
    idleCommandsPerSOnPrimariesWith1Viewer: idleWith1,
    idleCommandsPerSOnPrimariesWith50Viewers: idleWith50,
  });
} finally {
  await ctx.close();
  for (const client of [...singles, ...primaries]) client.disconnect();
  await cluster.stop();
  await masters.stop();
}
