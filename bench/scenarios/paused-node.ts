/**
 * A healthy phase, then one master SIGSTOPped (its socket stays open, nothing answers: a frozen or
 * partitioned node). The same closed-loop load runs through both; we compare p99 latency and watch
 * the client-side command queues and the live heap for growth while the node stays paused.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Masters } from "@/scripts/redis-masters";
import { closeClients, openClients, pendingCommands } from "../clients";
import { plan } from "../config";
import { liveHeapMb } from "../gc";
import { createAdapter, type LibraryName } from "../peers";
import { percentile } from "../stats";
import { closedLoop } from "../workload";

export interface PausedNodeResult extends Record<string, number> {
  healthyP99Ms: number;
  pausedP99Ms: number;
  /** pausedP99Ms / healthyP99Ms (target ≤ 1.5). */
  p99Ratio: number;
  pausedOpsPerS: number;
  /** Pending commands at the end of the paused window (sum over the library's clients). */
  pendingCommandsEnd: number;
  heapStartMb: number;
  heapEndMb: number;
  heapGrowthMb: number;
}

export interface QueueSample {
  readonly elapsedS: number;
  readonly pendingCommands: number;
  readonly heapMb: number;
}

const PAUSED_NODE = 4;

export async function pausedNode(
  masters: Masters,
  library: LibraryName,
): Promise<{ result: PausedNodeResult; samples: QueueSample[] }> {
  const clients = await openClients(masters.urls);
  const adapter = createAdapter(library, clients);
  const load = (phase: string, warmupMs: number, durationMs: number, samples?: QueueSample[]) =>
    closedLoop({
      workers: plan.paused.workers,
      warmupMs,
      durationMs,
      sampleEveryMs: plan.paused.sampleEveryMs,
      // Sampled in both phases, so the forced GC of a sample costs both alike.
      sample: (elapsedMs) => {
        const heapMb = liveHeapMb();
        samples?.push({
          elapsedS: Math.round(elapsedMs / 100) / 10,
          pendingCommands: pendingCommands(clients),
          heapMb,
        });
      },
      operation: async (worker) => {
        const { handle } = await adapter.acquire(
          `bench:paused:${library}:${phase}:${worker}`,
          plan.ttlMs,
        );
        if (handle) await adapter.release(handle);
      },
    });
  const samples: QueueSample[] = [];
  try {
    const healthy = await load("healthy", 300, plan.paused.healthyMs);
    masters.pause(PAUSED_NODE);
    // No warm-up here: the first operations after the pause are the ones a node timeout delays.
    const paused = await load("paused", 0, plan.paused.pausedMs, samples);
    const healthyP99Ms = percentile(healthy.latenciesMs, 99);
    const pausedP99Ms = percentile(paused.latenciesMs, 99);
    const first = samples[0]!;
    const last = samples.at(-1)!;
    return {
      samples,
      result: {
        healthyP99Ms,
        pausedP99Ms,
        p99Ratio: pausedP99Ms / healthyP99Ms,
        pausedOpsPerS: paused.opsPerS,
        pendingCommandsEnd: last.pendingCommands,
        heapStartMb: first.heapMb,
        heapEndMb: last.heapMb,
        heapGrowthMb: last.heapMb - first.heapMb,
      },
    };
  } finally {
    closeClients(clients);
    masters.resume(PAUSED_NODE);
    await sleep(500); // let the resumed node drain what was already in its socket buffers
  }
}
