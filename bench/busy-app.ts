/**
 * The console beside a busy application (issue 33, `BENCH_ONLY=busy`): an application writes
 * 4,000 keys/s on each of the five masters, then 20,000/s on one (app-writer.ts: cache strings
 * `SET … EX` and hashes `HSET`, many under the locks' own prefix `orders:`), with locks `orders:<id>`
 * held beside them. Per run, the loaded masters' CPU (INFO cpu) per 1,000 achieved writes:
 * the application alone (notifications off); with notifications on and a bare subscriber receiving
 * every one (the events' own cost); with the console at its defaults; with the console learning
 * nothing (`CONSOLE_SKIP_SHAPE_AFTER_READS=0`: every changed key that may be a lock read, as
 * before). During the console's window, new locks are taken on all five masters every 250 ms and
 * timed until the index shows them (write → visible), and any relist is counted.
 */
import { register } from "node:module";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { startAppWriter, type AppWriter } from "./app-writer";
import { plan } from "./config";
import type { BusyScenario, Phase, PhaseFigures } from "./busy-report";
import { seedLocks } from "./seed";

register("./server-only-hooks.mjs", import.meta.url);
const { createConsole } = await import("@/lib/server/console");
const { configFor } = await import("@/lib/server/config");

type ConsoleContext = ReturnType<typeof createConsole>;
/** The flags the console turns on (event-flags.ts), so every phase with events pays the same. */
const EVENT_FLAGS = "Kg$hzxe";

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function cpuS(masters: readonly Redis[]): Promise<number> {
  const infos = await Promise.all(masters.map((master) => master.info("cpu")));
  const field = (info: string, name: string) =>
    Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return infos.reduce(
    (sum, info) => sum + field(info, "used_cpu_user") + field(info, "used_cpu_sys"),
    0,
  );
}

/** The loaded masters' CPU per 1,000 writes the application achieved over one window. */
async function window(loaded: readonly Redis[], writer: AppWriter): Promise<PhaseFigures> {
  const [cpuBefore, writtenBefore, startedAt] = [
    await cpuS(loaded),
    writer.written(),
    performance.now(),
  ];
  await sleep(plan.busy.windowMs);
  const writes = writer.written() - writtenBefore;
  const cpuMs = ((await cpuS(loaded)) - cpuBefore) * 1000;
  const seconds = (performance.now() - startedAt) / 1000;
  return { writesPerS: writes / seconds, cpuMsPer1kWrites: cpuMs / (writes / 1000) };
}

/** New locks on all five masters, one every 250 ms, each timed until the index shows it held. */
async function lockTrials(ctx: ConsoleContext, admins: readonly Redis[], untilMs: number) {
  const visibleMs: number[] = [];
  for (let trial = 0; performance.now() < untilMs; trial += 1) {
    const key = `orders:${900_000 + trial}`;
    const token = (trial + 1).toString(16).padStart(40, "a");
    const startedAt = performance.now();
    await Promise.all(admins.map((admin) => admin.set(key, token, "PX", 30_000)));
    while (
      ctx.index.row(key, Date.now())?.state !== "held" &&
      performance.now() - startedAt < 5_000
    )
      await sleep(2);
    visibleMs.push(performance.now() - startedAt);
    await sleep(250);
  }
  return visibleMs;
}

/** Listings started while `during` runs (none is due: the resync is minutes away). */
async function countListings(ctx: ConsoleContext, nodes: number, during: Promise<unknown>) {
  let relists = 0;
  const running = new Set<number>();
  let done = false;
  void during.finally(() => (done = true));
  while (!done) {
    for (let node = 0; node < nodes; node += 1) {
      const listing = ctx.index.nodeStatus(node).listing !== null;
      if (listing && !running.has(node)) relists += 1;
      if (listing) running.add(node);
      else running.delete(node);
    }
    await sleep(50);
  }
  return relists;
}

async function consolePhase(
  urls: readonly string[],
  admins: readonly Redis[],
  loaded: readonly Redis[],
  writer: AppWriter,
  learning: boolean,
): Promise<PhaseFigures> {
  const ctx = createConsole(
    configFor(urls, {
      lockMatch: ["*"],
      enableKeyspaceEvents: true,
      logLevel: "silent",
      probeIntervalMs: 0,
      ...(learning ? {} : { skipShapeAfterReads: 0 }),
    }),
  );
  try {
    await ctx.index.sync(); // the first listing, paced
    await sleep(plan.busy.warmupMs); // learning: each shape is read ~1,000 times first
    const untilMs = performance.now() + plan.busy.windowMs;
    const trials = lockTrials(ctx, admins, untilMs);
    const [figures, visibleMs, relists] = await Promise.all([
      window(loaded, writer),
      trials,
      countListings(ctx, urls.length, trials),
    ]);
    return { ...figures, visibleMs, relists };
  } finally {
    await ctx.close();
  }
}

/** One run: every phase in turn, the application writing throughout. */
async function run(
  urls: readonly string[],
  admins: readonly Redis[],
  loaded: readonly Redis[],
  ratePerS: number,
): Promise<Record<Phase, PhaseFigures>> {
  await Promise.all(admins.map((admin) => admin.flushall()));
  await seedLocks(admins, "orders:", 100_000, 100_200, 3_600_000);
  const writer = startAppWriter(loaded, ratePerS);
  const setFlags = (flags: string) =>
    Promise.all(admins.map((admin) => admin.config("SET", "notify-keyspace-events", flags)));
  try {
    await setFlags("");
    await sleep(plan.busy.warmupMs);
    const alone = await window(loaded, writer);
    await setFlags(EVENT_FLAGS);
    const subscribers = loaded.map((master) => master.duplicate());
    let received = 0;
    for (const subscriber of subscribers) {
      subscriber.on("pmessageBuffer", () => (received += 1));
      await subscriber.psubscribe("__keyspace@0__:*");
    }
    await sleep(plan.busy.warmupMs);
    const events = await window(loaded, writer);
    log(`busy: the bare subscribers received ${received.toLocaleString()} notifications`);
    for (const subscriber of subscribers) subscriber.disconnect();
    const console = await consolePhase(urls, admins, loaded, writer, true);
    const noLearning = await consolePhase(urls, admins, loaded, writer, false);
    return {
      "app alone": alone,
      "events + bare subscriber": events,
      console,
      "console, no learning": noLearning,
    };
  } finally {
    await writer.stop();
  }
}

/** Both scenarios, `plan.busy.runs` runs each; restores the masters' notification flags after. */
export async function busyApp(urls: readonly string[], admins: readonly Redis[]) {
  const [, flags] = (await admins[0]!.config("GET", "notify-keyspace-events")) as string[];
  const scenarios: BusyScenario[] = [];
  const cases = [
    { name: "4,000 writes/s on each of 5 masters", loaded: admins, ratePerS: 4_000 },
    { name: "20,000 writes/s on 1 master", loaded: admins.slice(0, 1), ratePerS: 20_000 },
  ];
  try {
    for (const { name, loaded, ratePerS } of cases) {
      const runs = [];
      for (let index = 0; index < plan.busy.runs; index += 1) {
        log(`busy: ${name}, run ${index + 1}/${plan.busy.runs}`);
        runs.push(await run(urls, admins, loaded, ratePerS));
      }
      scenarios.push({ name, runs });
    }
  } finally {
    await Promise.all(
      admins.map((admin) => admin.config("SET", "notify-keyspace-events", flags ?? "")),
    );
    await Promise.all(admins.map((admin) => admin.flushall()));
  }
  return scenarios;
}
