/** `concurrency` callers, each on its own resource: acquire+release pairs per second, no contention. */
import { closeClients, openClients } from "../clients";
import { plan } from "../config";
import { createAdapter, type LibraryName } from "../peers";
import { percentile } from "../stats";
import { closedLoop } from "../workload";

export interface ThroughputCase {
  readonly concurrency: number;
  readonly autoPipelining: boolean;
}

export interface ThroughputResult extends Record<string, number> {
  opsPerS: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerOp: number;
}

export const caseName = ({ concurrency, autoPipelining }: ThroughputCase) =>
  `c${concurrency}${autoPipelining ? "-autopipe" : ""}`;

export async function throughput(
  urls: readonly string[],
  library: LibraryName,
  roundIndex: number,
  testCase: ThroughputCase,
): Promise<ThroughputResult> {
  const clients = await openClients(urls, { autoPipelining: testCase.autoPipelining });
  const adapter = createAdapter(library, clients);
  const prefix = `bench:throughput:${caseName(testCase)}:${library}:${roundIndex}`;
  try {
    const loop = await closedLoop({
      workers: testCase.concurrency,
      warmupMs: plan.throughput.warmupMs,
      durationMs: plan.throughput.durationMs,
      operation: async (worker) => {
        const { handle } = await adapter.acquire(`${prefix}:${worker}`, plan.ttlMs);
        if (!handle) throw new Error(`${library} could not lock an uncontended resource`);
        await adapter.release(handle);
      },
    });
    return {
      opsPerS: loop.opsPerS,
      p50Ms: percentile(loop.latenciesMs, 50),
      p99Ms: percentile(loop.latenciesMs, 99),
      cpuUsPerOp: loop.cpuUsPerOp,
    };
  } finally {
    closeClients(clients);
  }
}
