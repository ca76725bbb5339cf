/**
 * Runs one torture test: private masters and a fenced store, worker processes cycling locks, a
 * fault injector, then the checker over everything the workers reported. Runs until both the
 * cycle and fault targets are met (or `maxDurationMs` passes), so a fast machine finishes early.
 */
import { rmSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { startMasters, type Masters } from "@/scripts/redis-masters";
import { checkHistory, type CheckReport } from "./checker";
import { FaultInjector, type FaultKind } from "./fault-injector";
import { seededRandom } from "./random";
import { WorkerPool } from "./worker-pool";

export interface TortureOptions {
  readonly workers: number;
  readonly resources: number;
  readonly ttlMs: number;
  readonly restartQuarantineMs: number | false;
  /** Successful acquisitions to reach before stopping. */
  readonly minCycles: number;
  readonly minFaults: number;
  readonly maxDurationMs: number;
  readonly faultIntervalMs: readonly [min: number, max: number];
  readonly seed: number;
}

export interface TortureResult {
  readonly options: TortureOptions;
  readonly durationMs: number;
  readonly completedCycles: number;
  readonly acquireFailures: number;
  readonly faults: Record<FaultKind, number>;
  readonly faultCount: number;
  readonly faultLog: FaultInjector["log"];
  readonly report: CheckReport;
}

export async function runTorture(options: TortureOptions): Promise<TortureResult> {
  const dataDir = `.data/torture/${process.pid}`;
  const stores = await startMasters({ count: 1, dataDir: `${dataDir}/store` });
  let nodes: Masters | undefined;
  let workers: WorkerPool | undefined;
  try {
    nodes = await startMasters({ count: 5, dataDir: `${dataDir}/nodes` });
    const resources = Array.from(
      { length: options.resources },
      (_, index) => `torture:${options.seed}:${index}`,
    );
    workers = await WorkerPool.start(
      Array.from({ length: options.workers }, (_, workerId) => ({
        workerId,
        nodeUrls: nodes!.urls,
        storeUrl: stores.urls[0]!,
        resources,
        ttlMs: options.ttlMs,
        restartQuarantineMs: options.restartQuarantineMs,
        seed: options.seed + workerId + 1,
      })),
    );
    const injector = new FaultInjector({
      masters: nodes,
      workers,
      random: seededRandom(options.seed),
      ttlMs: options.ttlMs,
      restartDownMs: (options.restartQuarantineMs || 0) + 1_000,
      maxNodesDown: 2,
      intervalMs: options.faultIntervalMs,
    });
    const startedAt = Date.now();
    injector.start();
    const pool = workers;
    const done = () => pool.held.length >= options.minCycles && injector.total >= options.minFaults;
    while (!done() && Date.now() - startedAt < options.maxDurationMs) await sleep(200);
    await injector.stop();
    await workers.stop();
    const durationMs = Date.now() - startedAt;
    return {
      options,
      durationMs,
      completedCycles: workers.cycles,
      acquireFailures: workers.acquireFailures,
      faults: { ...injector.counts },
      faultCount: injector.total,
      faultLog: injector.log,
      report: checkHistory(workers),
    };
  } finally {
    await workers?.stop();
    await Promise.all([nodes?.stop(), stores.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatResult(result: TortureResult): string {
  const { options, report } = result;
  const faults = Object.entries(result.faults)
    .map(([kind, count]) => `${kind} ${count}`)
    .join(", ");
  const quarantine =
    options.restartQuarantineMs === false ? "off" : `${options.restartQuarantineMs} ms`;
  return [
    `torture seed ${options.seed}: ${options.workers} worker processes, ${options.resources} resources, TTL ${options.ttlMs} ms, quarantine ${quarantine}, fencing on`,
    `  duration ${(result.durationMs / 1000).toFixed(1)} s; lock cycles (acquisitions) ${report.holders}, completed ${result.completedCycles}, acquire failures ${result.acquireFailures}`,
    `  faults injected ${result.faultCount}: ${faults}`,
    `  writes ${report.writes}; stale writes ${report.staleWrites}, refused by the fenced store ${report.staleWritesRefused}; holders paused before acting ${report.emptyWindows}`,
    `  violations ${report.violations.length}`,
    ...report.violations
      .slice(0, 5)
      .flatMap((violation) => [
        `    ${violation.kind} on ${violation.resource}: ${violation.message}`,
        ...result.faultLog
          .filter((entry) => entry.at > violation.at - 3_000 && entry.at <= violation.at)
          .map((entry) => `      ${violation.at - entry.at} ms before: ${entry.fault}`),
      ]),
  ].join("\n");
}
