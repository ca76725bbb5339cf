/**
 * `npx tsx bench/owner-cost.ts`: what owner metadata (issue 10) costs our library. Acquire+release
 * pairs with the default `owner` (labels written with the lock, deleted with it) against
 * `owner: false`, sequential (one caller) and c64 (64 callers, each on its own resource), in
 * interleaved rounds on five fresh local masters, tsc-compiled like `npm run bench`. Prints medians
 * and the on/off ratio; writes bench/results/owner-cost.json.
 */
import { performance } from "node:perf_hooks";
import { startMasters } from "@/scripts/redis-masters";
import { closeClients, openClients } from "./clients";
import { compileOurs } from "./compile-ours";
import { plan } from "./config";
import { writeResults } from "./report";
import { median } from "./stats";
import { closedLoop } from "./workload";

type RedlockClass = typeof import("@redlock-console/redlock").default;
type Mode = "owner on" | "owner: false";
const CASES = [
  { name: "sequential", workers: 1, durationMs: plan.sequential.durationMs },
  { name: "c64", workers: 64, durationMs: plan.throughput.durationMs },
];
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const log = (message: string) => process.stderr.write(`[owner-cost] ${message}\n`);

async function measure(
  Redlock: RedlockClass,
  urls: string[],
  mode: Mode,
  workers: number,
  durationMs: number,
  roundIndex: number,
) {
  const clients = await openClients(urls);
  const redlock = new Redlock(clients, {
    owner: mode === "owner on" ? { service: "bench", purpose: "owner-cost" } : false,
  });
  const prefix = `bench:owner:${mode.replace(/\W+/g, "-")}:${workers}:${roundIndex}`;
  try {
    const loop = await closedLoop({
      workers,
      warmupMs: plan.throughput.warmupMs,
      durationMs,
      operation: async (worker) => {
        await (await redlock.acquire([`${prefix}:${worker}`], plan.ttlMs)).release();
      },
    });
    return { opsPerS: loop.opsPerS, cpuUsPerOp: loop.cpuUsPerOp };
  } finally {
    closeClients(clients);
  }
}

async function main(): Promise<void> {
  const startedMs = performance.now();
  const { default: Redlock } = (await import(compileOurs())) as { default: RedlockClass };
  const masters = await startMasters({ count: 5, dataDir: ".data/bench-owner-masters" });
  const figures: Record<string, { opsPerS: number[]; cpuUsPerOp: number[] }> = {};
  try {
    for (let roundIndex = 0; roundIndex < rounds; roundIndex += 1) {
      // Alternate which mode runs first, so warm-up and noise fall on both alike.
      const modes: Mode[] =
        roundIndex % 2 === 0 ? ["owner on", "owner: false"] : ["owner: false", "owner on"];
      for (const testCase of CASES)
        for (const mode of modes) {
          const result = await measure(
            Redlock,
            masters.urls,
            mode,
            testCase.workers,
            testCase.durationMs,
            roundIndex,
          );
          const entry = (figures[`${testCase.name}|${mode}`] ??= { opsPerS: [], cpuUsPerOp: [] });
          entry.opsPerS.push(result.opsPerS);
          entry.cpuUsPerOp.push(result.cpuUsPerOp);
          log(
            `round ${roundIndex + 1}: ${testCase.name} ${mode}: ${Math.round(result.opsPerS)} ops/s`,
          );
        }
    }
  } finally {
    await masters.stop();
  }
  const rows = CASES.map(({ name }) => {
    const on = figures[`${name}|owner on`]!;
    const off = figures[`${name}|owner: false`]!;
    return {
      scenario: name,
      onOpsPerS: Math.round(median(on.opsPerS)),
      offOpsPerS: Math.round(median(off.opsPerS)),
      ratio: Number((median(on.opsPerS) / median(off.opsPerS)).toFixed(3)),
      onCpuUsPerOp: Math.round(median(on.cpuUsPerOp)),
      offCpuUsPerOp: Math.round(median(off.cpuUsPerOp)),
    };
  });
  console.table(rows);
  writeResults(new URL("./results/owner-cost.json", import.meta.url).pathname, {
    rounds,
    durationS: Math.round((performance.now() - startedMs) / 1000),
    rows,
    figures,
  });
}

await main();
