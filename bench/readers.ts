/**
 * Readers against the console (the `readers` section of `npm run bench`, BENCH_ONLY=readers; issue
 * 41): five masters each holding application hashes and 50,000 locks of our library (one holder
 * session per lock, 100 of them waited for), the console at its defaults in this process with
 * public reads, every request through the route handlers. Measures a page of `/api/locks` (each
 * request its own cursor, so none is served from another's result), then 200 anonymous
 * `GET /api/sessions/{id}` at once from one address (the read allowance's burst) with `/api/health`
 * and an admin's lock page asked meanwhile, then ten `/api/metrics` scrapers with `/api/health` asked
 * every 50 ms. ZRANGEBYSCORE calls are the masters' own count (INFO commandstats). The heap is
 * sized as the production server sizes it (CONSOLE_HEAP_MODE, compact by default; boot.ts), and
 * the garbage collector's pauses while pages are asked are summed from V8's own `gc` entries.
 */
import { register } from "node:module";
import { monitorEventLoopDelay, performance, PerformanceObserver } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { encodeWaiterMember, waitersKey } from "@redlock-console/redlock";
import { callsPerCommand } from "@/scripts/command-stats";
import { plan } from "./config";
import { seedLocks, seedOtherHashes } from "./seed";
import { median, percentile } from "./stats";

register("./server-only-hooks.mjs", import.meta.url);
const { applyHeapMode } = await import("@/lib/server/heap-mode");
const { createConsole } = await import("@/lib/server/console");
const { configFor } = await import("@/lib/server/config");
const { setDefaultConsole } = await import("@/lib/server/default-console");
const locksRoute = await import("@/app/api/locks/route");
const lockRoute = await import("@/app/api/locks/[...resource]/route");
const sessionRoute = await import("@/app/api/sessions/[id]/route");
const healthRoute = await import("@/app/api/health/route");
const metricsRoute = await import("@/app/api/metrics/route");

type Figures = Record<string, number>;
const LOCK_PREFIX = "lock:";
const ADMIN_TOKEN = "bench-admin-token-0123456789abcdef";
const WAITED_LOCKS = 100;
const BURST = 200;
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
const sessionOf = (index: number) => index.toString(16).padStart(32, "0");

/** A request as the Node.js server hands it over: the peer address set, a bearer token or none. */
function request(path: string, peer: string, admin = false): Request {
  const headers: Record<string, string> = { host: "bench.test", "x-redlock-console-peer": peer };
  if (admin) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  return new Request(`http://bench.test${path}`, { headers });
}

async function timed(handler: (request: Request) => Promise<Response>, made: Request) {
  const startedAt = performance.now();
  const response = await handler(made);
  await response.text();
  return performance.now() - startedAt;
}

/** Waiter entries on the first WAITED_LOCKS locks, one per lock, each naming another lock's session. */
async function seedWaiters(admins: readonly Redis[]): Promise<void> {
  const member = (index: number) =>
    encodeWaiterMember({
      id: `w${index}`,
      labelsJson: JSON.stringify({ service: "billing" }),
      sinceMs: Date.now(),
      sessionId: sessionOf(index + WAITED_LOCKS),
    });
  await Promise.all(
    admins.map(async (admin) => {
      const pipeline = admin.pipeline();
      for (let index = 0; index < WAITED_LOCKS; index += 1)
        pipeline.zadd(waitersKey(`${LOCK_PREFIX}${index}`), Date.now() + 3_600_000, member(index));
      await pipeline.exec();
    }),
  );
}

/** GC pauses while `run` runs: their total and the longest, ms. */
async function withGcPauses<T>(run: () => Promise<T>) {
  const pauses: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push(entry.duration);
  });
  observer.observe({ entryTypes: ["gc"] });
  const result = await run();
  await sleep(0);
  observer.disconnect();
  return { result, gcMs: pauses.reduce((sum, ms) => sum + ms, 0), gcMaxMs: Math.max(0, ...pauses) };
}

/** Every page of `limit` rows from the start, each request with the previous one's cursor. */
async function pages(rounds: number, admin: boolean): Promise<number[]> {
  const samples: number[] = [];
  let cursor: string | null = null;
  for (let round = 0; round < rounds; round += 1) {
    const query: string = cursor ? `?cursor=${cursor}` : "";
    const startedAt = performance.now();
    const response = await locksRoute.GET(request(`/api/locks${query}`, "10.0.0.3", admin));
    const body = (await response.json()) as { nextCursor: string | null };
    samples.push(performance.now() - startedAt);
    cursor = body.nextCursor;
    await sleep(20);
  }
  return samples;
}

/** A sampler asking `handler` every `everyMs` until `until()` resolves. */
async function sampleWhile(
  everyMs: number,
  made: () => Request,
  handler: (request: Request) => Promise<Response>,
  until: Promise<unknown>,
): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const samples: number[] = [];
  while (!done) {
    samples.push(await timed(handler, made()));
    await sleep(everyMs);
  }
  return samples;
}

async function zrangebyscoreCalls(admins: readonly Redis[]): Promise<number> {
  return (await callsPerCommand(admins)).zrangebyscore ?? 0;
}

async function burst(admins: readonly Redis[]): Promise<Figures> {
  // A load balancer polls it: the node report is warm when the burst comes.
  await timed(healthRoute.GET, request("/api/health", "10.0.0.4"));
  const before = await zrangebyscoreCalls(admins);
  const startedAt = performance.now();
  const all = Promise.all(
    Array.from({ length: BURST }, (_, at) =>
      timed(sessionRoute.GET, request(`/api/sessions/${sessionOf(1_000 + at)}`, "10.0.0.1")),
    ),
  );
  const [served, health, lockPage] = await Promise.all([
    all,
    sampleWhile(20, () => request("/api/health", "10.0.0.4"), healthRoute.GET, all),
    sampleWhile(100, () => request("/api/locks/lock%3A7", "10.0.0.2", true), lockRoute.GET, all),
  ]);
  const burstMs = performance.now() - startedAt;
  return {
    burstMs,
    burstRequestP50Ms: median(served),
    burstZrangebyscore: (await zrangebyscoreCalls(admins)) - before,
    burstHealthP99Ms: percentile(health, 99),
    burstHealthMaxMs: Math.max(...health),
    burstLockPageP50Ms: median(lockPage),
    burstLockPageMaxMs: Math.max(...lockPage),
  };
}

async function scrapers(windowMs: number): Promise<Figures> {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  const endAt = performance.now() + windowMs;
  const scrapes: number[] = [];
  delay.enable();
  const scraping = Promise.all(
    Array.from({ length: 10 }, async (_, at) => {
      while (performance.now() < endAt) {
        scrapes.push(await timed(metricsRoute.GET, request("/api/metrics", `10.0.1.${at}`)));
        await new Promise(setImmediate);
      }
    }),
  );
  const health = await sampleWhile(
    50,
    () => request("/api/health", "10.0.0.4"),
    healthRoute.GET,
    scraping,
  );
  delay.disable();
  return {
    scrapes: scrapes.length,
    scrapeP50Ms: median(scrapes),
    scrapersHealthP50Ms: median(health),
    scrapersHealthP99Ms: percentile(health, 99),
    scrapersLoopDelayP99Ms: delay.percentile(99) / 1e6,
  };
}

export async function consoleReaders(
  urls: readonly string[],
  admins: readonly Redis[],
): Promise<Record<string, { ours: Figures }>> {
  const { lockCount, otherKeysPerNode, pageRounds, scrapeWindowMs } = plan.readers;
  log(`readers: seeding ${otherKeysPerNode} hashes and ${lockCount} locks per node`);
  await seedOtherHashes(admins, "app:", otherKeysPerNode);
  await seedLocks(admins, LOCK_PREFIX, 0, lockCount, 3_600_000, true);
  await seedWaiters(admins);
  const heapMode = process.env.CONSOLE_HEAP_MODE === "default" ? "default" : "compact";
  applyHeapMode(heapMode);
  log(`readers: heap mode ${heapMode}`);
  const ctx = createConsole(
    configFor([...urls], {
      lockMatch: ["*"],
      logLevel: "silent",
      probeIntervalMs: 0,
      publicRead: true,
      adminToken: ADMIN_TOKEN,
    }),
  );
  setDefaultConsole(ctx);
  try {
    // Measured once listed: a listing's own garbage and work would be counted otherwise.
    const listedBy = performance.now() + 300_000;
    // `complete` holds vacuously before any node is reachable: wait for every node's first listing.
    const listed = () =>
      ctx.index.complete && ctx.index.listing().nodes.every((node) => node.asOf !== null);
    while (!listed() && performance.now() < listedBy) await sleep(100);
    log(`readers: ${ctx.index.size} rows, index complete: ${ctx.index.complete}`);
    await ctx.index.sync();
    await sleep(1_000);
    log("readers: pages of /api/locks");
    const signedInRun = await withGcPauses(() => pages(pageRounds, true));
    const signedIn = signedInRun.result;
    const anonymous = await pages(pageRounds, false);
    await sleep(1_000);
    log(`readers: ${BURST} anonymous GET /api/sessions/{id}`);
    const burstFigures = await burst(admins);
    await sleep(2_000);
    log("readers: ten /api/metrics scrapers");
    const scraperFigures = await scrapers(scrapeWindowMs);
    const figures: Figures = {
      locksPerNode: ctx.index.size,
      pageP50Ms: median(signedIn),
      pageP90Ms: percentile(signedIn, 90),
      pageAnonymousP90Ms: percentile(anonymous, 90),
      pagesGcMs: signedInRun.gcMs,
      pagesGcMaxMs: signedInRun.gcMaxMs,
      ...burstFigures,
      ...scraperFigures,
    };
    return { [`readers ${lockCount / 1000}k locks`]: { ours: figures } };
  } finally {
    setDefaultConsole(undefined);
    await ctx.close();
    await Promise.all(admins.map((admin) => admin.flushall()));
  }
}
