/**
 * `npx tsx bench/contention.ts [waiters=10000]`: what the contention monitor's work costs on the
 * console's CPU, in memory only (no master: the graph never reads one). Three shapes of `waiters`
 * live waits, fed through the tracker as the live index hands them over:
 * - fan-in: locks with 4 waiting sessions each, every holder a distinct session (wide and shallow);
 * - chains: chains of 10 sessions, each waiting for a lock the next one holds (deep);
 * - cycles: two-lock deadlocks between session pairs (every participant in a cycle).
 * Prints, per shape, the tracker's cost per key change, a tick's sweep (every tick; it charges
 * blame once a second) and a graph rebuild (graph, chains, cycles: only on ticks after a change),
 * p50/p99 of 50 ticks 200 ms apart.
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { encodeValue } from "@/lib/redlock/value";
import { buildGraph } from "@/lib/server/contention/graph";
import { findPaths } from "@/lib/server/contention/paths";
import { WaitTracker } from "@/lib/server/contention/wait-tracker";
import type { WaiterRef } from "@/lib/server/locks/read/waiter-list";
import type { Reads } from "@/lib/server/locks/rows/live-index";
import type { NodeKeyState } from "@/lib/server/locks/read/key-state";
import { ownerOfValue } from "@/lib/server/locks/read/ownership";
import { StoredState } from "@/lib/server/locks/watch/store/indexed-state";
import { median, percentile } from "./stats";

const waiters = Number(process.argv[2] ?? 10_000);
const NODES = 5;
const session = () => randomBytes(16).toString("hex");
const nowMs = Date.now();

interface Lock {
  readonly key: string;
  readonly holder: string;
  readonly waiting: readonly string[];
}

const valueHeldBy = (holder: string) =>
  encodeValue(randomBytes(20).toString("hex"), '{"service":"bench"}', nowMs, 30_000, holder);

function readsOf(lock: Lock): Reads {
  const list: WaiterRef[] = lock.waiting.map((waiter, position) => ({
    id: `${lock.key}#${position}`,
    session: waiter,
    sinceMs: nowMs - 1_000,
    expiresAtMs: nowMs + 3_600_000,
    labels: { service: "bench" },
  }));
  const value = valueHeldBy(lock.holder);
  const waitersSummary = { count: list.length, oldestSince: nowMs - 1_000 };
  // As the node store keeps it (the compact state, waiters and their entries in its rare fields).
  const read: NodeKeyState = {
    value,
    pttlMs: 30_000,
    format: "string",
    holdCount: null,
    owner: ownerOfValue(value),
    waiters: waitersSummary,
    waiterList: list,
  };
  const state = new StoredState(read, nowMs + 30_000, value, 0);
  return Array.from({ length: NODES }, () => state);
}

const shapes: Record<string, () => Lock[]> = {
  "fan-in (4 waiters a lock)": () =>
    Array.from({ length: waiters / 4 }, (_, index) => ({
      key: `fan:${index}`,
      holder: session(),
      waiting: [session(), session(), session(), session()],
    })),
  "chains of 10 sessions": () => {
    const locks: Lock[] = [];
    for (let chain = 0; chain < waiters / 9; chain += 1) {
      const members = Array.from({ length: 10 }, session);
      for (let step = 0; step < 9; step += 1)
        locks.push({
          key: `chain:${chain}:${step}`,
          holder: members[step + 1]!,
          waiting: [members[step]!],
        });
    }
    return locks;
  },
  "two-lock cycles": () => {
    const locks: Lock[] = [];
    for (let pair = 0; pair < waiters / 2; pair += 1) {
      const [a, b] = [session(), session()];
      locks.push({ key: `cycle:${pair}:x`, holder: a, waiting: [b] });
      locks.push({ key: `cycle:${pair}:y`, holder: b, waiting: [a] });
    }
    return locks;
  },
};

for (const [shape, make] of Object.entries(shapes)) {
  const locks = make();
  const reads = locks.map((lock) => [lock.key, readsOf(lock)] as const);
  const tracker = new WaitTracker({ ended: () => undefined, blamed: () => undefined });
  const updateStart = performance.now();
  for (const [key, read] of reads) tracker.update(key, read, nowMs);
  const updateUs = ((performance.now() - updateStart) * 1000) / reads.length;
  const sweeps: number[] = [];
  const builds: number[] = [];
  let found = { chains: 0, cycles: 0, waits: 0 };
  for (let round = 0; round < 50; round += 1) {
    const start = performance.now();
    tracker.sweep(nowMs + round * 200);
    const swept = performance.now();
    const graph = buildGraph(tracker.locks());
    const paths = findPaths(graph, 50);
    builds.push(performance.now() - swept);
    sweeps.push(swept - start);
    found = { chains: paths.chainsTotal, cycles: paths.cycles.length, waits: graph.waits };
  }
  const figure = (values: number[]) =>
    `p50 ${median(values).toFixed(1)} ms, p99 ${percentile(values, 99).toFixed(1)} ms`;
  console.log(
    `${shape}: ${found.waits} waits, ${locks.length} locks, ${found.chains} chains, ${found.cycles} cycles; ` +
      `update ${updateUs.toFixed(1)} µs/key change; sweep ${figure(sweeps)}; graph rebuild ${figure(builds)}`,
  );
}
