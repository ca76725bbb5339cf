/**
 * `npm run bench`: this library vs node-redlock and @sesamecare-oss/redlock on the same five local
 * masters (started here on free ports), then the console snapshot. Prints a table, writes
 * bench/results/latest.json. BENCH_QUICK=1 for a short smoke run.
 */
import { performance } from "node:perf_hooks";
import { startMasters } from "../scripts/redis-masters";
import { closeClients, openClients } from "./clients";
import { plan } from "./config";
import { redisVersion } from "./redis-info";
import { formatTable, machineInfo, writeResults } from "./report";
import { buildRows } from "./rows";
import { consoleSnapshot } from "./scenarios/snapshot";
import { runLockRounds, runPausedNode } from "./suite";

const RESULTS_FILE = new URL("./results/latest.json", import.meta.url).pathname;

async function main(): Promise<void> {
  const startedMs = performance.now();
  const masters = await startMasters({ count: 5, dataDir: `.data/bench/${process.pid}` });
  const admins = await openClients(masters.urls);
  try {
    const { sections } = plan;
    const lockRounds = sections.locks
      ? await runLockRounds(masters.urls, admins)
      : { medians: {}, rounds: {} };
    const paused = sections.paused ? await runPausedNode(masters) : { medians: {}, samples: {} };
    const snapshot = sections.snapshot ? await consoleSnapshot(masters.urls, admins) : {};
    const medians = { ...lockRounds.medians, ...paused.medians, ...snapshot };
    const rows = buildRows(medians);
    const durationS = (performance.now() - startedMs) / 1000;
    const machine = machineInfo(await redisVersion(admins[0]!));
    process.stdout.write(`\n${formatTable(rows)}\n\n`);
    process.stdout.write(
      `machine: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node}, redis ${machine.redis}; ${Math.round(durationS)} s${plan.quick ? " (BENCH_QUICK)" : ""}\n`,
    );
    writeResults(RESULTS_FILE, {
      generatedAt: new Date().toISOString(),
      quick: plan.quick,
      durationS,
      machine,
      plan,
      rows,
      medians,
      rounds: lockRounds.rounds,
      pausedNodeSamples: paused.samples,
    });
    process.stdout.write(`wrote ${RESULTS_FILE}\n`);
  } finally {
    closeClients(admins);
    await masters.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
