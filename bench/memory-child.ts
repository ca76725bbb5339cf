/**
 * One console in a process of its own (spawned by bench/memory.ts), so its RSS is the console's
 * alone: no seeding or measuring clients beside it. Loads the console's modules, lists the masters
 * (URLs in argv[2], comma-separated), then ten clients scrape the metrics back to back as
 * `/api/metrics` does while the event loop's delay is sampled, and one caller asks for the health
 * report every 50 ms as a load balancer would. Prints its figures as one line of JSON.
 * MEMORY_HEAP_SNAPSHOT=<file> also writes a heap snapshot of the listed index (for bench/heap-top.ts),
 * MEMORY_SETTLE_MS after the listing (default 500: the timeline's re-read may still be under way).
 */
import { register } from "node:module";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { getHeapStatistics, writeHeapSnapshot } from "node:v8";
import { liveHeapMb } from "./gc";
import { median, percentile } from "./stats";

register("./server-only-hooks.mjs", import.meta.url);

const MB = 1e6;
const urls = process.argv[2]!.split(",");
const scrapers = Number(process.argv[3] ?? 10);
const scrapeWindowMs = Number(process.argv[4] ?? 10_000);

/** RSS after a full collection: what the process keeps, not garbage waiting for the next GC. */
function settledRssMb(): { rssMb: number; heapUsedMb: number } {
  const heapUsedMb = (liveHeapMb() * (1024 * 1024)) / MB;
  return { rssMb: process.memoryUsage().rss / MB, heapUsedMb };
}

/** The largest RSS sampled every 20 ms: a listing's or a scrape's garbage counts while it lives. */
let peakRssBytes = 0;
const sampler = setInterval(() => {
  peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss());
}, 20);

// As the production server does at boot (boot.ts): CONSOLE_HEAP_MODE=default for V8's own sizing.
const { applyHeapMode } = await import("@/lib/server/heap-mode");
applyHeapMode(process.env.CONSOLE_HEAP_MODE === "default" ? "default" : "compact");
const { createConsole } = await import("@/lib/server/console");
const { configFor } = await import("@/lib/server/config");
const loaded = settledRssMb();

const listingStartedAt = performance.now();
const ctx = createConsole(
  configFor(urls, { lockMatch: ["*"], logLevel: "silent", probeIntervalMs: 0 }),
  { processMetrics: true },
);
await ctx.index.sync();
const listingS = (performance.now() - listingStartedAt) / 1000;
// The timeline seeds its holds on its next tick once the index is whole.
await sleep(Number(process.env.MEMORY_SETTLE_MS ?? 500));
const listed = settledRssMb();
const memory = process.memoryUsage();
const heap = getHeapStatistics();
if (process.env.MEMORY_HEAP_SNAPSHOT) writeHeapSnapshot(process.env.MEMORY_HEAP_SNAPSHOT);

/** What the `/api/metrics` route does per request. */
async function scrape(): Promise<number> {
  const startedAt = performance.now();
  await ctx.metricsText();
  return performance.now() - startedAt;
}

const delay = monitorEventLoopDelay({ resolution: 5 });
const scrapeMs: number[] = [];
const healthMs: number[] = [];
const endAt = performance.now() + scrapeWindowMs;
delay.enable();
await Promise.all([
  ...Array.from({ length: scrapers }, async () => {
    while (performance.now() < endAt) {
      scrapeMs.push(await scrape());
      // A request arrives as I/O: a scraper whose answer came from cache would otherwise loop in
      // microtasks and starve the timers it is measured by.
      await new Promise(setImmediate);
    }
  }),
  (async () => {
    while (performance.now() < endAt) {
      const startedAt = performance.now();
      await ctx.nodes();
      healthMs.push(performance.now() - startedAt);
      await sleep(50);
    }
  })(),
]);
delay.disable();
const afterScrapes = settledRssMb();
await ctx.close();
clearInterval(sampler);

process.stdout.write(
  `${JSON.stringify({
    locksPerNode: ctx.index.size,
    listingS,
    loadedRssMb: loaded.rssMb,
    loadedHeapMb: loaded.heapUsedMb,
    rssMb: listed.rssMb,
    heapUsedMb: listed.heapUsedMb,
    externalMb: memory.external / MB,
    arrayBuffersMb: memory.arrayBuffers / MB,
    heapTotalMb: heap.total_heap_size / MB,
    rssAfterScrapesMb: afterScrapes.rssMb,
    peakRssMb: peakRssBytes / MB,
    scrapes: scrapeMs.length,
    scrapeP50Ms: median(scrapeMs),
    scrapeP99Ms: percentile(scrapeMs, 99),
    loopDelayP50Ms: delay.percentile(50) / 1e6,
    loopDelayP99Ms: delay.percentile(99) / 1e6,
    loopDelayMaxMs: delay.max / 1e6,
    healthP50Ms: median(healthMs),
    healthP99Ms: percentile(healthMs, 99),
  })}\n`,
);
process.exit(0);
