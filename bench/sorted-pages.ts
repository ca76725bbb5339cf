/**
 * A page of `GET /api/locks` sorted by the server (issue 41), at BENCH_SORT_LOCKS locks (default
 * 50,000) on five embedded masters: per sort, the time of a page whose order is built afresh
 * (a new query, or once the kept order is old) and of one that reuses it (the next page, a second
 * viewer).
 * Run: `npx tsx bench/sorted-pages.ts`.
 */
import { register } from "node:module";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { encodeValue } from "@/lib/redlock/value";
import { startMasters } from "@/scripts/redis-masters";
import { percentile } from "./stats";

register("./server-only-hooks.mjs", import.meta.url);
const { createConsole } = await import("@/lib/server/console");
const { configFor } = await import("@/lib/server/config");
const { pageOf } = await import("@/lib/server/locks/pages/page");

const LOCKS = Number(process.env.BENCH_SORT_LOCKS ?? 50_000);
const RUNS = Number(process.env.BENCH_SORT_RUNS ?? 15);
const BATCH = 1_000;
const SERVICES = ["billing", "payroll", "audit", "search", "mail"];

async function seed(clients: readonly Redis[]): Promise<void> {
  const nowMs = Date.now();
  await Promise.all(
    clients.map(async (client) => {
      for (let start = 0; start < LOCKS; start += BATCH) {
        const pipeline = client.pipeline();
        for (let index = start; index < Math.min(LOCKS, start + BATCH); index += 1) {
          const ttlMs = 600_000 + (index % 997) * 100;
          const labels = JSON.stringify({ service: SERVICES[index % SERVICES.length] });
          const token = index.toString(16).padStart(40, "0");
          const value = encodeValue(token, labels, nowMs - (index % 3_600) * 1_000, ttlMs);
          pipeline.set(`lock:${index}`, value, "PX", ttlMs);
        }
        await pipeline.exec();
      }
    }),
  );
}

const masters = await startMasters({ dataDir: ".data/bench-sorted-pages" });
const clients = masters.urls.map((url) => new Redis(url));
try {
  await seed(clients);
  const ctx = createConsole(
    configFor(masters.urls, { lockMatch: ["lock:*"], logLevel: "silent", probeIntervalMs: 0 }),
  );
  await ctx.index.sync();
  process.stderr.write(`[bench] ${ctx.index.size} locks indexed\n`);
  const queries = [
    { name: "resource (index order)", query: { limit: 100 } },
    { name: "heldFor desc", query: { limit: 100, sort: "heldFor", order: "desc" } },
    { name: "validity asc", query: { limit: 100, sort: "validity" } },
    { name: "service asc", query: { limit: 100, sort: "service" } },
    { name: "owner=service=payroll", query: { limit: 100, owner: "service=payroll" } },
  ] as const;
  for (const { name, query } of queries) {
    const fresh: number[] = [];
    const reused: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      // Past the time sorted-page.ts keeps an order (1 s, or 4× its build): built afresh.
      await sleep(Math.max(1_000, 4 * (fresh.at(-1) ?? 0)) + 100);
      let startedMs = performance.now();
      await pageOf(ctx.index, query);
      fresh.push(performance.now() - startedMs);
      startedMs = performance.now();
      await pageOf(ctx.index, query);
      reused.push(performance.now() - startedMs);
    }
    const ms = (values: number[], p: number) => percentile(values, p).toFixed(1);
    console.log(
      `${name.padEnd(24)} fresh p50 ${ms(fresh, 50)} ms p90 ${ms(fresh, 90)} ms · reused p50 ${ms(reused, 50)} ms p90 ${ms(reused, 90)} ms`,
    );
  }
  await ctx.close();
} finally {
  await Promise.all(clients.map((client) => client.quit()));
  await masters.stop();
}
