/**
 * Polling's idle cost per master (issue 33 part 4, `BENCH_ONLY=polling`): masters with keyspace
 * events off, each holding 250,000 then 1,000,000 keys (seed.ts's application mix, 1% locks with
 * TTLs), nothing changing. Per size: each master's CPU share (INFO cpu, user + sys) without the
 * console; the console's first listing (at the node's budget); then a window during the first
 * polling pass, paced at the key cost assumed before any pass measured it; then, when that pass
 * ends within the section's time, a window at the pace measured from it. Each window reports the
 * share of a core per master (median, max), the pace (keys/s) and the freshness (changesWithinMs).
 */
import { register } from "node:module";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { plan } from "./config";
import type { PollingPhase, PollingSize, PollingWindow } from "./polling-report";
import { seedAppKeys } from "./seed";
import { median } from "./stats";

register("./server-only-hooks.mjs", import.meta.url);
const { createConsole } = await import("@/lib/server/console");
const { configFor } = await import("@/lib/server/config");

type ConsoleContext = ReturnType<typeof createConsole>;
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** CPU seconds (user + sys) each redis-server has used since it started. */
async function cpuSeconds(admins: readonly Redis[]): Promise<number[]> {
  const infos = await Promise.all(admins.map((admin) => admin.info("cpu")));
  const field = (info: string, name: string) =>
    Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return infos.map((info) => field(info, "used_cpu_user") + field(info, "used_cpu_sys"));
}

/** Each master's share of one core over `plan.polling.windowMs`, and the console's figures at its end. */
async function window(
  phase: PollingPhase,
  admins: readonly Redis[],
  ctx: ConsoleContext | null,
): Promise<PollingWindow> {
  const before = await cpuSeconds(admins);
  const startedAt = performance.now();
  await sleep(plan.polling.windowMs);
  const after = await cpuSeconds(admins);
  const elapsedS = (performance.now() - startedAt) / 1000;
  const shares = after.map((cpu, index) => (cpu - before[index]!) / elapsedS);
  const statuses = ctx ? admins.map((_, index) => ctx.index.nodeStatus(index)) : [];
  const polling = statuses.map((status) => status.polling);
  const values = (pick: (pace: NonNullable<(typeof polling)[number]>) => number | null) =>
    polling.flatMap((pace) => (pace && pick(pace) !== null ? [pick(pace)!] : []));
  return {
    phase,
    sharePerMaster: shares,
    shareMedian: median(shares),
    shareMax: Math.max(...shares),
    modes: statuses.map((status) => status.mode),
    lockKeys: statuses.map((status) => status.lockKeys),
    perS: values((pace) => pace.perS),
    keyCostUs: values((pace) => pace.keyCostUs),
    changesWithinMs: values((pace) => pace.changesWithinMs),
  };
}

/** Waits until every node's pace was measured by a pass, at most `limitMs`; false when it was not. */
async function paceMeasured(ctx: ConsoleContext, nodes: number, limitMs: number) {
  const untilMs = performance.now() + limitMs;
  const measured = () =>
    Array.from({ length: nodes }, (_, index) => ctx.index.nodeStatus(index).polling).every(
      (pace) => typeof pace?.keyCostUs === "number",
    );
  while (!measured() && performance.now() < untilMs) await sleep(500);
  return measured();
}

/** One size: seed, the masters alone, then the console's listing and polling windows. */
async function size(urls: readonly string[], admins: readonly Redis[], keysPerNode: number) {
  await Promise.all(admins.map((admin) => admin.flushall()));
  log(`polling: seeding ${keysPerNode.toLocaleString()} keys per master`);
  const seededAt = performance.now();
  const locksPerNode = await seedAppKeys(admins, keysPerNode);
  const seedS = (performance.now() - seededAt) / 1000;
  const windows = [await window("masters alone", admins, null)];
  const ctx = createConsole(
    configFor(urls, { lockMatch: ["*"], logLevel: "silent", probeIntervalMs: 0 }),
  );
  try {
    const listedAt = performance.now();
    await ctx.index.sync(); // the first listing, at the node's budget
    const firstListingS = (performance.now() - listedAt) / 1000;
    log(`polling: listed in ${firstListingS.toFixed(1)} s; first pass (assumed cost)`);
    windows.push(await window("first pass, assumed key cost", admins, ctx));
    const passLeftMs = Math.max(...windows.at(-1)!.changesWithinMs) - plan.polling.windowMs;
    if (passLeftMs <= plan.polling.measureWaitMs) {
      log(`polling: waiting ~${Math.round(passLeftMs / 1000)} s for the measured pace`);
      // A pass visits SCAN's COUNT per call (more than the keys) and waits on a loaded machine.
      if (await paceMeasured(ctx, urls.length, passLeftMs * 1.5 + 30_000))
        windows.push(await window("measured pace", admins, ctx));
      else log("polling: the first pass did not end in time: no window at the measured pace");
    } else
      log(`polling: the first pass ends in ~${Math.round(passLeftMs / 1000)} s: not waited for`);
    return { keysPerNode, locksPerNode, seedS, firstListingS, windows } satisfies PollingSize;
  } finally {
    await ctx.close();
  }
}

/** Every size of `plan.polling.keyCounts`, events off; restores the masters' flags after. */
export async function pollingCost(urls: readonly string[], admins: readonly Redis[]) {
  const [, flags] = (await admins[0]!.config("GET", "notify-keyspace-events")) as string[];
  await Promise.all(admins.map((admin) => admin.config("SET", "notify-keyspace-events", "")));
  const sizes: PollingSize[] = [];
  try {
    for (const keysPerNode of plan.polling.keyCounts)
      sizes.push(await size(urls, admins, keysPerNode));
  } finally {
    await Promise.all(
      admins.map((admin) => admin.config("SET", "notify-keyspace-events", flags ?? "")),
    );
    await Promise.all(admins.map((admin) => admin.flushall()));
  }
  return sizes;
}
