/**
 * The first acquire of a fresh Redlock instance, ours (with its holder session) against
 * node-redlock 5 on the same masters (issue 40, item 6):
 *   npx tsx bench/first-acquire.ts            quiet
 *   BUSY=1 npx tsx bench/first-acquire.ts     two busy loops taking the cores half the time
 * Each round opens fresh ready clients, builds a fresh instance, times its first acquire and reads
 * the key's PTTL on the same client right after (what node-redlock's suite checks within 99 ms):
 * `shortMs` is the TTL minus that PTTL. Work a session puts in front of the acquire, or between its
 * reply and the caller's next command, shows in both.
 */
import type { Redis } from "ioredis";
import NodeRedlock from "redlock";
import { startMasters } from "@/scripts/redis-masters";
import { startBusyLoops } from "./busy-loops";
import { closeClients, openClients } from "./clients";
import { loadOurs, ourRedlockClass } from "./peers";
import { median, percentile, round } from "./stats";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const MASTERS = 5;
const TTL_MS = 60_000;
type Library = "ours" | "node-redlock";
interface Sample {
  acquireMs: number;
  shortMs: number;
}

async function firstAcquire(library: Library, clients: Redis[], key: string): Promise<Sample> {
  const Ours = ourRedlockClass();
  const redlock =
    library === "ours" ? new Ours(clients, { retryCount: 0 }) : new NodeRedlock(clients);
  const startMs = performance.now();
  const lock = await redlock.acquire([key], TTL_MS);
  const acquireMs = performance.now() - startMs;
  const pttlMs = await clients[0]!.pttl(key);
  await redlock.release(lock as never);
  await redlock.quit();
  return { acquireMs, shortMs: TTL_MS - pttlMs };
}

function summary(samples: readonly Sample[]) {
  const acquire = samples.map((sample) => sample.acquireMs);
  const short = samples.map((sample) => sample.shortMs);
  return {
    acquireMedianMs: round(median(acquire)),
    acquireP90Ms: round(percentile(acquire, 90)),
    pttlShortMedianMs: median(short),
    pttlShortP90Ms: percentile(short, 90),
    pttlShortMaxMs: Math.max(...short),
    over99Ms: short.filter((ms) => ms > 99).length,
  };
}

const masters = await startMasters({ count: MASTERS, dataDir: ".data/bench/first-acquire" });
const busy = process.env.BUSY === "1" ? startBusyLoops() : [];
try {
  await loadOurs();
  const samples: Record<Library, Sample[]> = { ours: [], "node-redlock": [] };
  for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex += 1) {
    const order: Library[] = roundIndex % 2 ? ["node-redlock", "ours"] : ["ours", "node-redlock"];
    for (const library of order) {
      const clients = await openClients(masters.urls);
      try {
        samples[library].push(await firstAcquire(library, clients, `first-${roundIndex}`));
      } finally {
        closeClients(clients);
      }
    }
  }
  console.log(`first acquire, ${ROUNDS} rounds, ${busy.length ? "busy loops" : "quiet"}`);
  console.table({ ours: summary(samples.ours), "node-redlock": summary(samples["node-redlock"]) });
} finally {
  for (const child of busy) child.kill("SIGKILL");
  await masters.stop();
}
