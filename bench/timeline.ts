/**
 * `npx tsx bench/timeline.ts`: what the timeline (lib/server/timeline) costs and how fast it is,
 * on five fresh local masters with a console at its defaults:
 * - memory per 100,000 kept transitions (live heap after a full GC, transitions as the timeline
 *   makes them: rl1 values with owner labels, decoded owners);
 * - push latency: a lock SET on the five masters until its "acquired" transition reaches a
 *   subscriber of the timeline (what the SSE route writes to every browser), p50/p99 of 200;
 * - the masters' commands/s while 50 event-stream subscribers follow a lock taken 50 times a
 *   second (what the feed costs the masters beyond the index's own reads: nothing).
 * Writes bench/results/timeline.json.
 */
import { randomBytes } from "node:crypto";
import { register } from "node:module";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { makeTransition } from "@/lib/api";
import { encodeValue } from "@/lib/redlock/value";
import { startMasters } from "@/scripts/redis-masters";
import { liveHeapMb } from "./gc";
import { commandsExecuted } from "./redis-info";
import { writeResults } from "./report";
import { median, percentile } from "./stats";

register("./server-only-hooks.mjs", import.meta.url);
const { createConsole } = await import("@/lib/server/console");
const { configFor } = await import("@/lib/server/config");
const { History } = await import("@/lib/server/timeline/history");
const { ownerOfValue } = await import("@/lib/server/locks/read/ownership");

const log = (message: string) => process.stderr.write(`[timeline] ${message}\n`);

function memoryPer100k(): number {
  const count = 100_000;
  const history = new History(count);
  const before = liveHeapMb();
  for (let id = 1; id <= count; id += 1) {
    const value = encodeValue(
      randomBytes(20).toString("hex"),
      JSON.stringify({ service: `svc-${id % 20}`, host: `host-${id % 50}`, pid: String(id % 999) }),
      Date.now(),
      30_000,
    );
    const transition = makeTransition({
      id,
      at: Date.now(),
      kind: id % 3 === 0 ? "released" : "acquired",
      resource: `orders:${id % 5_000}`,
      value,
      owner: ownerOfValue(value),
      heldMs: id % 3 === 0 ? 1234 : null,
    });
    history.push(transition);
  }
  const after = liveHeapMb();
  if (history.size !== count) throw new Error("history lost transitions");
  return after - before;
}

const masters = await startMasters({ count: 5, dataDir: ".data/bench-timeline" });
const admins = masters.urls.map((url) => new Redis(url));
const ctx = createConsole(configFor(masters.urls, { logLevel: "silent", probeIntervalMs: 0 }));
try {
  const memoryMb = memoryPer100k();
  log(`memory per 100k transitions: ${memoryMb.toFixed(1)} MB`);
  await ctx.index.sync();
  while (ctx.timeline.horizon().completeSince === null) await sleep(20);

  const latenciesMs: number[] = [];
  for (let sample = 0; sample < 200; sample += 1) {
    const resource = `bench:timeline:${sample}`;
    const arrived = new Promise<number>((resolve) => {
      const unsubscribe = ctx.timeline.subscribe((transition) => {
        if (transition.resource === resource && transition.kind === "acquired") {
          unsubscribe();
          resolve(performance.now());
        }
      });
    });
    const writtenAt = performance.now();
    await Promise.all(admins.map((admin) => admin.set(resource, "b".repeat(40), "PX", 2_000)));
    latenciesMs.push((await arrived) - writtenAt);
    await Promise.all(admins.map((admin) => admin.del(resource)));
  }
  log(
    `push p50 ${median(latenciesMs).toFixed(1)} ms, p99 ${percentile(latenciesMs, 99).toFixed(1)} ms`,
  );

  const churn = async (withStreams: boolean) => {
    const before = await commandsExecuted(admins);
    const startedAt = performance.now();
    for (let round = 0; round < 100; round += 1) {
      const resource = `bench:churn:${withStreams}:${round % 5}`;
      await Promise.all(admins.map((admin) => admin.set(resource, "c".repeat(40), "PX", 2_000)));
      await sleep(10);
      await Promise.all(admins.map((admin) => admin.del(resource)));
      await sleep(10);
    }
    const seconds = (performance.now() - startedAt) / 1000;
    // The workload's own commands: a SET and a DEL per node per round.
    return ((await commandsExecuted(admins)) - before - 100 * 2 * admins.length) / seconds;
  };
  const consoleCommandsPerS = await churn(false);
  const streams = Array.from({ length: 50 }, () => ctx.timeline.subscribe(() => {}));
  const consoleCommandsPerSWith50 = await churn(true);
  for (const unsubscribe of streams) unsubscribe();
  log(
    `console's commands/s on the masters under churn: ${consoleCommandsPerS.toFixed(0)} without viewers, ${consoleCommandsPerSWith50.toFixed(0)} with 50 streams`,
  );
  writeResults(new URL("./results/timeline.json", import.meta.url).pathname, {
    memoryMbPer100kTransitions: memoryMb,
    pushP50Ms: median(latenciesMs),
    pushP99Ms: percentile(latenciesMs, 99),
    consoleCommandsPerSUnderChurn: consoleCommandsPerS,
    consoleCommandsPerSUnderChurnWith50Streams: consoleCommandsPerSWith50,
  });
} finally {
  await ctx.close();
  await Promise.all(admins.map((admin) => admin.quit()));
  await masters.stop();
}
