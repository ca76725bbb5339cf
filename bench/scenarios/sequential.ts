/** One caller, one resource: acquire then release, back to back. Latency of each half and of the pair. */
import { performance } from "node:perf_hooks";
import { closeClients, openClients } from "../clients";
import { plan } from "../config";
import { createAdapter, type LibraryName } from "../peers";
import { percentile } from "../stats";
import { closedLoop } from "../workload";

export interface SequentialResult extends Record<string, number> {
  pairP50Ms: number;
  pairP99Ms: number;
  acquireP50Ms: number;
  acquireP99Ms: number;
  opsPerS: number;
  cpuUsPerOp: number;
}

export async function sequential(
  urls: readonly string[],
  library: LibraryName,
  roundIndex: number,
): Promise<SequentialResult> {
  const clients = await openClients(urls);
  const adapter = createAdapter(library, clients);
  const resource = `bench:sequential:${library}:${roundIndex}`;
  const acquireMs: number[] = [];
  try {
    const loop = await closedLoop({
      workers: 1,
      ...plan.sequential,
      operation: async () => {
        const startMs = performance.now();
        const { handle } = await adapter.acquire(resource, plan.ttlMs);
        acquireMs.push(performance.now() - startMs);
        if (!handle) throw new Error(`${library} could not lock an uncontended resource`);
        await adapter.release(handle);
      },
    });
    const measured = acquireMs.slice(-loop.latenciesMs.length);
    return {
      pairP50Ms: percentile(loop.latenciesMs, 50),
      pairP99Ms: percentile(loop.latenciesMs, 99),
      acquireP50Ms: percentile(measured, 50),
      acquireP99Ms: percentile(measured, 99),
      opsPerS: loop.opsPerS,
      cpuUsPerOp: loop.cpuUsPerOp,
    };
  } finally {
    closeClients(clients);
  }
}
