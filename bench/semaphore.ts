/**
 * Semaphores side by side (BENCH_ONLY=semaphore, or a full `npm run bench`): acquire/release pairs
 * per second of this library's `redlock.semaphore()` (k permit locks on five masters), of
 * redis-semaphore's `Semaphore` (one master: not a quorum) and of its `RedlockSemaphore` (a
 * majority of per-node caps on the same five masters: faster, but it can admit more than k,
 * docs/safety.md), at 1 and 64 callers. The same retry pause (10 ms) for all; no auto-refresh.
 * redis-semaphore is loaded from the project's dependencies, or from REDIS_SEMAPHORE_DIR (a
 * directory holding its package); without either its rows are skipped and say so.
 */
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import type { Redis } from "ioredis";
import SourceRedlock from "@redlock-console/redlock";
import { closeClients, openClients } from "./clients";
import { median, round } from "./stats";

type Library = "ours" | "redis-semaphore Semaphore" | "redis-semaphore RedlockSemaphore";

interface PeerLock {
  acquire(): Promise<void>;
  release(): Promise<void>;
}
interface RedisSemaphoreModule {
  Semaphore: new (client: Redis, key: string, limit: number, options: object) => PeerLock;
  RedlockSemaphore: new (clients: Redis[], key: string, limit: number, options: object) => PeerLock;
}

export interface SemaphoreRow {
  readonly library: Library;
  readonly callers: number;
  readonly permits: number;
  /** Median over rounds; null when the library was not available. */
  readonly pairsPerS: number | null;
}

const SCENARIOS = [
  { callers: 1, permits: 8 },
  { callers: 64, permits: 8 },
  { callers: 64, permits: 64 },
] as const;
const PEER_OPTIONS = {
  lockTimeout: 10_000,
  acquireTimeout: 30_000,
  retryInterval: 10,
  refreshInterval: 0,
};

async function loadRedisSemaphore(): Promise<RedisSemaphoreModule | undefined> {
  const dir = process.env.REDIS_SEMAPHORE_DIR;
  try {
    if (dir) return createRequire(import.meta.url)(dir) as RedisSemaphoreModule;
    const name = "redis-semaphore"; // not a static import: the bench runs without it
    return (await import(name)) as RedisSemaphoreModule;
  } catch {
    return undefined;
  }
}

/** `callers` loops of acquire then release for `durationMs`; pairs completed per second. */
async function pairsPerSecond(
  callers: number,
  durationMs: number,
  makeCaller: () => () => Promise<void>,
): Promise<number> {
  const endMs = performance.now() + durationMs;
  let pairs = 0;
  const startMs = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      const pair = makeCaller();
      while (performance.now() < endMs) {
        await pair();
        pairs += 1;
      }
    }),
  );
  return pairs / ((performance.now() - startMs) / 1000);
}

/** One library's caller for one scenario: a function that does one acquire/release pair. */
function callerFactory(
  library: Library,
  clients: Redis[],
  peer: RedisSemaphoreModule | undefined,
  key: string,
  permits: number,
): (() => () => Promise<void>) | undefined {
  if (library === "ours") {
    const redlock = new SourceRedlock(clients, { retryCount: -1, retryDelay: 10, retryJitter: 10 });
    const semaphore = redlock.semaphore(key, permits);
    return () => async () => {
      const lock = await semaphore.acquire(10_000);
      await lock.release();
    };
  }
  if (!peer) return undefined;
  return () => {
    const lock =
      library === "redis-semaphore Semaphore"
        ? new peer.Semaphore(clients[0]!, key, permits, PEER_OPTIONS)
        : new peer.RedlockSemaphore(clients, key, permits, PEER_OPTIONS);
    return async () => {
      await lock.acquire();
      await lock.release();
    };
  };
}

export async function semaphoreBench(
  urls: readonly string[],
  options: { rounds: number; warmupMs: number; durationMs: number },
): Promise<SemaphoreRow[]> {
  const peer = await loadRedisSemaphore();
  const libraries: Library[] = [
    "ours",
    "redis-semaphore Semaphore",
    "redis-semaphore RedlockSemaphore",
  ];
  const rows: SemaphoreRow[] = [];
  for (const { callers, permits } of SCENARIOS) {
    const samples = new Map<Library, number[]>(libraries.map((library) => [library, []]));
    // Rounds interleave the libraries, so a slow moment of the machine is shared among them.
    for (let roundIndex = 0; roundIndex < options.rounds; roundIndex += 1) {
      for (const library of libraries) {
        const clients = await openClients(urls);
        try {
          const key = `bench-sem-${callers}-${permits}-${roundIndex}-${library.length}`;
          const makeCaller = callerFactory(library, clients, peer, key, permits);
          if (!makeCaller) continue;
          await pairsPerSecond(callers, options.warmupMs, makeCaller);
          samples.get(library)!.push(await pairsPerSecond(callers, options.durationMs, makeCaller));
        } finally {
          closeClients(clients);
        }
      }
    }
    for (const library of libraries) {
      const values = samples.get(library)!;
      rows.push({
        library,
        callers,
        permits,
        pairsPerS: values.length ? round(median(values), 0) : null,
      });
    }
  }
  return rows;
}

/** The table: pairs per second per library, and ours over each peer. */
export function formatSemaphoreTable(rows: readonly SemaphoreRow[]): string {
  const lines = ["semaphore: acquire/release pairs per second (median of rounds)"];
  for (const { callers, permits } of SCENARIOS) {
    const of = (library: Library) =>
      rows.find(
        (row) => row.library === library && row.callers === callers && row.permits === permits,
      )?.pairsPerS ?? null;
    const ours = of("ours");
    const cells = (["redis-semaphore Semaphore", "redis-semaphore RedlockSemaphore"] as const).map(
      (library) => {
        const value = of(library);
        if (value === null) return `${library}: not installed`;
        return `${library} ${value} (ours ×${ours === null ? "?" : round(ours / value, 2)})`;
      },
    );
    lines.push(`  ${callers} caller(s), k = ${permits}: ours ${ours ?? "?"}; ${cells.join("; ")}`);
  }
  return lines.join("\n");
}
