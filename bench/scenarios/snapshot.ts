/**
 * The console's live index (lib/server/locks) on five nodes that also hold many application hashes
 * each, at its defaults (LOCK_MATCH=*, CONSOLE_SCAN_BUDGET_PER_S): per lock count, the time to the
 * first complete listing (and what the masters paid meanwhile), page latency, write-to-visible
 * latency (a lock SET or DEL on the masters until `/api/locks` shows it), the masters' commands/s
 * while nothing changes with 1 and 50 viewers, and the console's memory.
 */
import { register } from "node:module";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { plan } from "../config";
import { commandsExecuted } from "../redis-info";
import { seedLocks, seedOtherHashes } from "../seed";
import { median, percentile } from "../stats";

register("../server-only-hooks.mjs", import.meta.url);
const { createConsole } = await import("@/lib/server/console");
const { configFor } = await import("@/lib/server/config");
const { pageOf } = await import("@/lib/server/locks/pages/page");

type Figures = Record<string, number>;
type ConsoleContext = ReturnType<typeof createConsole>;
const LOCK_PREFIX = "lock:";
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

function openConsole(urls: readonly string[]): ConsoleContext {
  return createConsole(
    configFor(urls, { lockMatch: ["*"], logLevel: "silent", probeIntervalMs: 0 }),
  );
}

/** Redis CPU seconds (user + sys) summed over the nodes. */
async function redisCpuS(admins: readonly Redis[]): Promise<number> {
  const infos = await Promise.all(admins.map((admin) => admin.info("cpu")));
  return infos.reduce(
    (sum, info) =>
      sum +
      Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1] ?? 0) +
      Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1] ?? 0),
    0,
  );
}

/** Time until the index holds every node completely, and what the masters spent meanwhile. */
async function firstListing(urls: readonly string[], admins: readonly Redis[]) {
  const commandsBefore = await commandsExecuted(admins);
  const cpuBefore = await redisCpuS(admins);
  const startedAt = performance.now();
  const ctx = openConsole(urls);
  await ctx.index.sync();
  const listingS = (performance.now() - startedAt) / 1000;
  const keysPerNode = Math.max(...(await Promise.all(admins.map((admin) => admin.dbsize()))));
  return {
    ctx,
    figures: {
      firstListingS: listingS,
      keysPerNode,
      listedKeysPerSPerNode: keysPerNode / listingS,
      budgetPerSPerNode: ctx.config.scanBudgetPerS,
      listingCommandsPerSPerNode:
        ((await commandsExecuted(admins)) - commandsBefore) / listingS / admins.length,
      listingRedisCpuPctPerNode:
        (100 * ((await redisCpuS(admins)) - cpuBefore)) / listingS / admins.length,
    },
  };
}

/** Latency of a page of 100 (first pages and pages deep in the list), serialized as the route does. */
async function pageLatency(ctx: ConsoleContext): Promise<Figures> {
  const timesMs: number[] = [];
  let cursor: string | null = null;
  for (let round = 0; round < plan.snapshot.pageRounds; round += 1) {
    const startedAt = performance.now();
    const page = await pageOf(ctx.index, { limit: 100, ...(cursor ? { cursor } : {}) });
    JSON.stringify(page);
    timesMs.push(performance.now() - startedAt);
    cursor = round % 10 === 9 ? null : page.nextCursor;
  }
  return { pageP50Ms: median(timesMs), pageP99Ms: percentile(timesMs, 99) };
}

/** A lock SET (then DEL) on all five masters until the index shows it held (then gone). */
async function writeToVisible(ctx: ConsoleContext, admins: readonly Redis[]): Promise<Figures> {
  const timesMs: number[] = [];
  const waitFor = async (key: string, held: boolean, startedAt: number) => {
    for (;;) {
      const row = ctx.index.row(key, Date.now());
      if ((row?.state === "held") === held) return performance.now() - startedAt;
      if (performance.now() - startedAt > 10_000) return Number.POSITIVE_INFINITY;
      await sleep(1);
    }
  };
  for (let trial = 0; trial < plan.snapshot.visibilityTrials; trial += 1) {
    const key = `${LOCK_PREFIX}visible-${trial}`;
    // A 40-hex token: a value of no lock format is skipped by the index (lock-format.ts).
    const token = (trial + 1).toString(16).padStart(40, "a");
    let startedAt = performance.now();
    await Promise.all(admins.map((admin) => admin.set(key, token, "PX", 60_000)));
    timesMs.push(await waitFor(key, true, startedAt));
    startedAt = performance.now();
    await Promise.all(admins.map((admin) => admin.del(key)));
    timesMs.push(await waitFor(key, false, startedAt));
  }
  return { visibleP50Ms: median(timesMs), visibleP99Ms: percentile(timesMs, 99) };
}

/** The masters' commands/s (all five) while `viewers` each fetch a page every second and nothing changes. */
async function idleLoad(
  ctx: ConsoleContext,
  admins: readonly Redis[],
  viewers: number,
): Promise<number> {
  const before = await commandsExecuted(admins);
  const startedAt = performance.now();
  const view = async () => {
    while (performance.now() - startedAt < plan.snapshot.idleWindowMs) {
      await pageOf(ctx.index, { limit: 100 });
      await sleep(1_000);
    }
  };
  await Promise.all(Array.from({ length: viewers }, view));
  const elapsedS = (performance.now() - startedAt) / 1000;
  // Minus the INFO of the second measurement (one per node), counted before it returned.
  return ((await commandsExecuted(admins)) - before - admins.length) / elapsedS;
}

export async function consoleSnapshot(
  urls: readonly string[],
  admins: readonly Redis[],
): Promise<Record<string, { ours: Figures }>> {
  const { lockCounts, otherKeysPerNode } = plan.snapshot;
  log(`snapshot: seeding ${otherKeysPerNode} application hashes per node`);
  await seedOtherHashes(admins, "app:", otherKeysPerNode);
  const results: Record<string, { ours: Figures }> = {};
  let seeded = 0;
  for (const lockCount of lockCounts) {
    await seedLocks(admins, LOCK_PREFIX, seeded, lockCount, 3_600_000);
    seeded = lockCount;
    log(`snapshot: ${lockCount} locks among ${otherKeysPerNode} other keys per node`);
    const { ctx, figures } = await firstListing(urls, admins);
    try {
      // The whole bench process (the console plus the seeding and measuring clients).
      const memory = { consoleRssMb: process.memoryUsage().rss / 1e6 };
      const pages = await pageLatency(ctx);
      const visible = await writeToVisible(ctx, admins);
      const idle1 = await idleLoad(ctx, admins, 1);
      const idleMany = await idleLoad(ctx, admins, plan.snapshot.viewers);
      results[`index ${lockCount / 1000}k locks`] = {
        ours: {
          ...figures,
          ...pages,
          ...visible,
          idleCommandsPerS1: idle1,
          [`idleCommandsPerS${plan.snapshot.viewers}`]: idleMany,
          ...memory,
        },
      };
    } finally {
      await ctx.close();
    }
  }
  await Promise.all(admins.map((admin) => admin.flushall()));
  return results;
}
