/**
 * One caller, acquire then release, with 2 of 5 masters SIGSTOPped (sockets open, no answers): a
 * majority answers at once, so release need not wait for the hung pair.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Masters } from "@/scripts/redis-masters";
import { closeClients, openClients } from "../clients";
import { plan } from "../config";
import { createAdapter, type LibraryName } from "../peers";
import { percentile } from "../stats";
import { closedLoop } from "../workload";

export interface HungReleaseResult extends Record<string, number> {
  releaseP50Ms: number;
  releaseP99Ms: number;
  acquireP50Ms: number;
  opsPerS: number;
}

export async function hungRelease(
  masters: Masters,
  library: LibraryName,
): Promise<HungReleaseResult> {
  const clients = await openClients(masters.urls);
  const adapter = createAdapter(library, clients);
  const releaseMs: number[] = [];
  const acquireMs: number[] = [];
  const { pausedNodes, warmupMs, durationMs } = plan.hungRelease;
  for (const index of pausedNodes) masters.pause(index);
  try {
    const loop = await closedLoop({
      workers: 1,
      warmupMs,
      durationMs,
      operation: async () => {
        const startMs = performance.now();
        const { handle } = await adapter.acquire(`bench:hung-release:${library}`, plan.ttlMs);
        const acquiredMs = performance.now();
        if (!handle) throw new Error(`${library} could not lock with 3 of 5 masters up`);
        await adapter.release(handle);
        acquireMs.push(acquiredMs - startMs);
        releaseMs.push(performance.now() - acquiredMs);
      },
    });
    const count = loop.latenciesMs.length;
    return {
      releaseP50Ms: percentile(releaseMs.slice(-count), 50),
      releaseP99Ms: percentile(releaseMs.slice(-count), 99),
      acquireP50Ms: percentile(acquireMs.slice(-count), 50),
      opsPerS: loop.opsPerS,
    };
  } finally {
    closeClients(clients);
    for (const index of pausedNodes) masters.resume(index);
    await sleep(500); // let the resumed nodes drain what was already in their socket buffers
  }
}
