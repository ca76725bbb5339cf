/**
 * 16 contenders, each with its own connections (like 16 processes), fight over one resource:
 * acquire, hold briefly, release, repeat. Every library gets the same retry settings, so "wasted
 * attempts" (attempts that did not win) compare like for like.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { closeClients, openClients } from "../clients";
import { plan } from "../config";
import { createAdapter, type LibraryName } from "../peers";
import { commandsExecuted } from "../redis-info";
import { jainIndex, percentile } from "../stats";
import { closedLoop } from "../workload";

export interface ContendedResult extends Record<string, number> {
  acquisitionsPerS: number;
  jainIndex: number;
  minShare: number;
  maxShare: number;
  wastedAttemptsPerAcquisition: number;
  /** Acquire calls that used up every retry without winning. */
  exhaustedCalls: number;
  redisCommandsPerAcquisition: number;
  /** Time from a holder's release call to another contender's acquire resolving, ms. */
  handoffP50Ms: number;
  handoffP99Ms: number;
}

export interface ContendedOptions {
  readonly contenders: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly ttlMs: number;
  readonly holdMs: number;
  readonly retry: { retryCount: number; retryDelay: number; retryJitter: number };
  /** Pause after a release before contending again (so the releaser does not win its own lock back). */
  readonly thinkMs?: number;
}

export async function contended(
  urls: readonly string[],
  admins: readonly Redis[],
  library: LibraryName,
  roundIndex: number,
  options: ContendedOptions = plan.contended,
  name = "contended",
): Promise<ContendedResult> {
  const { contenders, ttlMs, holdMs, retry } = options;
  const clientSets = await Promise.all(Array.from({ length: contenders }, () => openClients(urls)));
  const adapters = clientSets.map((clients) => createAdapter(library, clients, retry));
  const resource = `bench:${name}:${library}:${roundIndex}`;
  const handoffsMs: number[] = [];
  let releaseStartMs: number | undefined;
  let lastReleaser = -1;
  const wins = new Array<number>(contenders).fill(0);
  let attempts = 0;
  let exhaustedCalls = 0;
  let measuring = false;
  let commandsAtStart = 0;
  try {
    const loop = await closedLoop({
      workers: contenders,
      warmupMs: options.warmupMs,
      durationMs: options.durationMs,
      sampleEveryMs: options.durationMs * 2,
      sample: () => {
        if (measuring) return;
        measuring = true;
        void commandsExecuted(admins).then((count) => (commandsAtStart = count));
      },
      operation: async (worker) => {
        const outcome = await adapters[worker]!.acquire(resource, ttlMs);
        if (measuring) attempts += outcome.attempts;
        if (!outcome.handle) {
          if (measuring) exhaustedCalls += 1;
          return;
        }
        if (measuring) wins[worker]! += 1;
        if (measuring && releaseStartMs !== undefined && worker !== lastReleaser)
          handoffsMs.push(performance.now() - releaseStartMs);
        releaseStartMs = undefined;
        await sleep(holdMs);
        releaseStartMs = performance.now();
        lastReleaser = worker;
        await adapters[worker]!.release(outcome.handle);
        if (options.thinkMs) await sleep(options.thinkMs);
      },
    });
    const commands = (await commandsExecuted(admins)) - commandsAtStart;
    const acquisitions = wins.reduce((total, count) => total + count, 0);
    return {
      acquisitionsPerS: (acquisitions * 1000) / loop.measuredMs,
      jainIndex: jainIndex(wins),
      minShare: Math.min(...wins) / Math.max(1, acquisitions),
      maxShare: Math.max(...wins) / Math.max(1, acquisitions),
      wastedAttemptsPerAcquisition: (attempts - acquisitions) / Math.max(1, acquisitions),
      exhaustedCalls,
      redisCommandsPerAcquisition: commands / Math.max(1, acquisitions),
      handoffP50Ms: percentile(handoffsMs, 50),
      handoffP99Ms: percentile(handoffsMs, 99),
    };
  } finally {
    // quit(), not only the clients: our contenders' wake subscribers would keep reconnecting
    // (and the process alive) once the masters stop.
    await Promise.all(adapters.map((adapter) => adapter.quit().catch(() => undefined)));
    clientSets.forEach(closeClients);
  }
}
