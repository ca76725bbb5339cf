/**
 * Our library at a git revision (A) against the working tree (B), with node-redlock beside them, on
 * the same five masters in interleaved rounds: what a change to lib/redlock does to a single caller
 * and to 64 callers, before it goes into the full `npm run bench`.
 *   npx tsx bench/ab.ts [revision=HEAD] [rounds=10]
 * Both copies are compiled as compile-ours.ts compiles the library for the bench.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import NodeRedlock from "redlock";
import type SourceRedlock from "@redlock-console/redlock";
import { startMasters } from "@/scripts/redis-masters";
import { closeClients, openClients } from "./clients";
import { compileOurs } from "./compile-ours";
import { median, percentile } from "./stats";
import { closedLoop } from "./workload";

const [revision = "HEAD", roundsArg = "10"] = process.argv.slice(2);
const rounds = Number(roundsArg);
/** AB_WORKERS=1 measures the single caller only. */
const workerCounts = (process.env.AB_WORKERS ?? "1,64").split(",").map(Number);
const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const revisionDir = path.join(REPO_ROOT, ".data/bench/ab-source");
rmSync(revisionDir, { recursive: true, force: true });
mkdirSync(revisionDir, { recursive: true });
execFileSync("sh", ["-c", `git archive "$0" lib/redlock | tar -x -C "$1"`, revision, revisionDir], {
  cwd: REPO_ROOT,
});

type RedlockClass = typeof SourceRedlock;
const load = async (url: string) => ((await import(url)) as { default: RedlockClass }).default;
const variants: Record<string, RedlockClass | typeof NodeRedlock> = {
  [`ours @ ${revision}`]: await load(
    compileOurs(
      path.join(revisionDir, "lib/redlock"),
      path.join(REPO_ROOT, ".data/bench/ab-revision"),
    ),
  ),
  "ours @ working tree": await load(
    compileOurs(undefined, path.join(REPO_ROOT, ".data/bench/ab-working")),
  ),
  "node-redlock": NodeRedlock,
};

interface Locker {
  acquire(resources: string[], ttlMs: number): Promise<unknown>;
  release(lock: never): Promise<unknown>;
}

const masters = await startMasters({ count: 5, dataDir: `.data/bench-ab/${process.pid}` });
try {
  const names = Object.keys(variants);
  const figures = new Map<string, { opsPerS: number[]; cpuUs: number[]; p99Ms: number[] }>();
  for (let round = 0; round < rounds; round += 1)
    for (const workers of workerCounts)
      for (let offset = 0; offset < names.length; offset += 1) {
        const name = names[(offset + round) % names.length]!;
        const clients = await openClients(masters.urls);
        const locker = new variants[name]!(clients) as unknown as Locker;
        const loop = await closedLoop({
          workers,
          warmupMs: 300,
          durationMs: 1_000,
          operation: async (worker) => {
            const lock = await locker.acquire([`ab:${name}:${round}:${worker}`], 10_000);
            await locker.release(lock as never);
          },
        });
        closeClients(clients);
        const key = `c${workers} ${name}`;
        const entry = figures.get(key) ?? { opsPerS: [], cpuUs: [], p99Ms: [] };
        entry.opsPerS.push(loop.opsPerS);
        entry.cpuUs.push(loop.cpuUsPerOp);
        entry.p99Ms.push(percentile(loop.latenciesMs, 99));
        figures.set(key, entry);
      }
  for (const workers of workerCounts) {
    const peer = median(figures.get(`c${workers} node-redlock`)!.opsPerS);
    for (const name of names) {
      const { opsPerS, cpuUs, p99Ms } = figures.get(`c${workers} ${name}`)!;
      console.log(
        `c${workers} ${name.padEnd(22)} ${median(opsPerS).toFixed(0).padStart(6)} pairs/s (${(median(opsPerS) / peer).toFixed(2)}x node-redlock), p99 ${median(p99Ms).toFixed(3)} ms, ${median(cpuUs).toFixed(0)} µs CPU per pair`,
      );
    }
  }
} finally {
  await masters.stop();
}
