/**
 * `npm run bench`: this library vs node-redlock and @sesamecare-oss/redlock on the same five local
 * masters (started here on free ports), then the console snapshot. Prints a table, writes
 * bench/results/latest.json. BENCH_QUICK=1 for a short smoke run.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { Redis } from "ioredis";
import { startMasters } from "@/scripts/redis-masters";
import { closeClients, openClients } from "./clients";
import { plan } from "./config";
import { redisVersion } from "./redis-info";
import { formatTable, machineInfo, writeResults } from "./report";
import { loadOurs } from "./peers";
import { buildRows } from "./rows";
import { formatBusyTable, summarize } from "./busy-report";
import { consoleMemory } from "./memory";
import { formatPollingTable } from "./polling-report";
import { consoleSnapshot } from "./scenarios/snapshot";
import { runHungRelease, runLockRounds, runPausedNode, type Medians } from "./suite";

/** The commit of lib/redlock measured, with "+dirty" when it has uncommitted changes. */
function oursCommit(): string {
  const git = (args: string[]) => spawnSync("git", args, { encoding: "utf8" }).stdout?.trim() ?? "";
  const dirty = git(["status", "--porcelain", "--", "lib/redlock"]).length > 0;
  return `${git(["rev-parse", "--short", "HEAD"]) || "unknown"}${dirty ? "+dirty" : ""}`;
}

/** The console scenarios depend on lib/server; if they break, the library figures still count. */
async function consoleSectionOrError(
  name: string,
  section: (urls: string[], admins: Redis[]) => Promise<Medians>,
  urls: string[],
  admins: Redis[],
): Promise<Medians> {
  try {
    return await section(urls, admins);
  } catch (error) {
    console.error(`[bench] console ${name} scenarios failed:`, error);
    return {};
  }
}

/** The busy-application section (busy-app.ts); loaded only when it runs, as it loads lib/server. */
async function busyAppOrError(urls: string[], admins: Redis[]) {
  try {
    const { busyApp } = await import("./busy-app");
    return await busyApp(urls, admins);
  } catch (error) {
    console.error("[bench] busy application section failed:", error);
    return [];
  }
}

/** The polling section (polling-cost.ts); loaded only when it runs, as it loads lib/server. */
async function pollingCostOrError(urls: string[], admins: Redis[]) {
  try {
    const { pollingCost } = await import("./polling-cost");
    return await pollingCost(urls, admins);
  } catch (error) {
    console.error("[bench] polling section failed:", error);
    return [];
  }
}

/** The readers section (readers.ts); loaded only when it runs, as it loads lib/server and app/api. */
async function readersOrError(urls: string[], admins: Redis[]): Promise<Medians> {
  try {
    const { consoleReaders } = await import("./readers");
    return await consoleReaders(urls, admins);
  } catch (error) {
    console.error("[bench] readers section failed:", error);
    return {};
  }
}

/** The overview tab section (overview-tab.ts); loaded only when it runs, as it loads lib/server. */
async function overviewTabOrError(urls: string[], admins: Redis[]) {
  try {
    const { overviewTab } = await import("./overview-tab");
    return await overviewTab(urls, admins);
  } catch (error) {
    console.error("[bench] overview tab section failed:", error);
    return null;
  }
}

/** The semaphore section (semaphore.ts). */
async function semaphoreOrError(urls: string[]) {
  try {
    const { semaphoreBench } = await import("./semaphore");
    return await semaphoreBench(urls, { rounds: plan.rounds, ...plan.semaphore });
  } catch (error) {
    console.error("[bench] semaphore section failed:", error);
    return [];
  }
}

/** The latency targets (bench/targets/); loaded only when they run, as they load lib/server. */
async function targetsOrError(urls: string[]) {
  try {
    const { TARGETS } = await import("./targets/index");
    const { measureTarget } = await import("./targets/target");
    const chosen = TARGETS.filter(
      (target) => plan.targetFilter === null || target.name.includes(plan.targetFilter),
    );
    const results = [];
    for (const target of chosen) results.push(await measureTarget(target, { urls }, plan.quick));
    return results;
  } catch (error) {
    console.error("[bench] targets section failed:", error);
    return [];
  }
}

/** BENCH_RESULTS_FILE writes a partial run (BENCH_ONLY) elsewhere, keeping the last full run. */
const RESULTS_FILE =
  process.env.BENCH_RESULTS_FILE ?? new URL("./results/latest.json", import.meta.url).pathname;
const BUSY_RESULTS_FILE = new URL("./results/busy-app.json", import.meta.url).pathname;
const POLLING_RESULTS_FILE = new URL("./results/polling-cost.json", import.meta.url).pathname;
const OVERVIEW_TAB_RESULTS_FILE = new URL("./results/overview-tab.json", import.meta.url).pathname;
const SEMAPHORE_RESULTS_FILE = new URL("./results/semaphore.json", import.meta.url).pathname;
/** The latency targets' figures, which docs/safety.md and the README quote. */
const TARGETS_RESULTS_FILE = new URL("./results/targets.json", import.meta.url).pathname;

async function main(): Promise<void> {
  const startedMs = performance.now();
  const oursLoadedAs = await loadOurs();
  const dataDir = `.data/bench/${process.pid}`;
  const masters = await startMasters({ count: 5, dataDir });
  const admins = await openClients(masters.urls);
  try {
    const { sections } = plan;
    const lockRounds = sections.locks
      ? await runLockRounds(masters.urls, admins)
      : { medians: {}, rounds: {} };
    const hung = sections.paused ? await runHungRelease(masters) : { medians: {} };
    const paused = sections.paused ? await runPausedNode(masters) : { medians: {}, samples: {} };
    const snapshot = sections.snapshot
      ? await consoleSectionOrError("snapshot", consoleSnapshot, masters.urls, admins)
      : {};
    const busy = sections.busy ? await busyAppOrError(masters.urls, admins) : [];
    const polling = sections.polling ? await pollingCostOrError(masters.urls, admins) : [];
    const overviewTab = sections.overviewTab
      ? await overviewTabOrError(masters.urls, admins)
      : null;
    const memory = sections.memory
      ? await consoleSectionOrError("memory", consoleMemory, masters.urls, admins)
      : {};
    const readers = sections.readers ? await readersOrError(masters.urls, admins) : {};
    const semaphores = sections.semaphore ? await semaphoreOrError(masters.urls) : [];
    const targets = sections.targets ? await targetsOrError(masters.urls) : [];
    const medians = {
      ...lockRounds.medians,
      ...hung.medians,
      ...paused.medians,
      ...snapshot,
      ...memory,
      ...readers,
    };
    const rows = buildRows(medians);
    const durationS = (performance.now() - startedMs) / 1000;
    const machine = machineInfo(await redisVersion(admins[0]!));
    process.stdout.write(`\n${formatTable(rows)}\n\n`);
    if (busy.length > 0) {
      process.stdout.write(`${formatBusyTable(busy)}\n\n`);
      writeResults(BUSY_RESULTS_FILE, {
        generatedAt: new Date().toISOString(),
        plan: plan.busy,
        summary: summarize(busy),
        scenarios: busy,
      });
    }
    if (polling.length > 0) {
      process.stdout.write(`${formatPollingTable(polling, plan.polling.windowMs)}\n\n`);
      writeResults(POLLING_RESULTS_FILE, {
        generatedAt: new Date().toISOString(),
        quick: plan.quick,
        plan: plan.polling,
        sizes: polling,
      });
    }
    if (overviewTab) {
      process.stdout.write(`overview tab: ${JSON.stringify(overviewTab)}\n\n`);
      writeResults(OVERVIEW_TAB_RESULTS_FILE, {
        generatedAt: new Date().toISOString(),
        figures: overviewTab,
      });
    }
    if (semaphores.length > 0) {
      const { formatSemaphoreTable } = await import("./semaphore");
      process.stdout.write(`${formatSemaphoreTable(semaphores)}\n\n`);
      writeResults(SEMAPHORE_RESULTS_FILE, {
        generatedAt: new Date().toISOString(),
        quick: plan.quick,
        plan: plan.semaphore,
        rows: semaphores,
      });
    }
    if (targets.length > 0) {
      const { formatTargetTable } = await import("./targets/target");
      process.stdout.write(`${formatTargetTable(targets)}\n\n`);
      writeResults(TARGETS_RESULTS_FILE, {
        generatedAt: new Date().toISOString(),
        quick: plan.quick,
        machine,
        oursCommit: oursCommit(),
        targets,
      });
    }
    process.stdout.write(
      `machine: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node}, redis ${machine.redis}; ours ${oursLoadedAs}; ${Math.round(durationS)} s${plan.quick ? " (BENCH_QUICK)" : ""}\n`,
    );
    writeResults(RESULTS_FILE, {
      generatedAt: new Date().toISOString(),
      quick: plan.quick,
      durationS,
      machine,
      oursLoadedAs,
      oursCommit: oursCommit(),
      plan,
      rows,
      medians,
      rounds: lockRounds.rounds,
      pausedNodeSamples: paused.samples,
      busyApp: { summary: summarize(busy), scenarios: busy },
    });
    process.stdout.write(`wrote ${RESULTS_FILE}\n`);
  } finally {
    closeClients(admins);
    await masters.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
