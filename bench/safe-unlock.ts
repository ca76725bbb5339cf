/**
 * `npx tsx bench/safe-unlock.ts`: safe on-call unlock (issue 31) on five fresh local masters,
 * tsc-compiled like `npm run bench`.
 * - Force-release, SAFE_UNLOCK_ROUNDS rounds (default 30): a `using()` holder, a contender retrying
 *   every 10 ms, the console's tombstone written then its notice PUBLISHed (as
 *   docs/holder-sessions.md fixes them). Abort latency: PUBLISH → the routine's signal aborted.
 *   Overlap: the routine's settling minus the contender's acquire (≤ 0: nobody held it before the
 *   holder stopped).
 * - The heartbeat's cost: acquire+release pairs with the default session against `session: false`,
 *   one caller and 64, in interleaved rounds (BENCH_ROUNDS, default 5); and the commands a session
 *   sends an idle node per second.
 * Prints a table; writes bench/results/safe-unlock.json.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { startMasters } from "@/scripts/redis-masters";
import { callsPerCommand } from "@/scripts/command-stats";
import { closeClients, openClients } from "./clients";
import { compileOurs } from "./compile-ours";
import { plan } from "./config";
import { writeResults } from "./report";
import { median, percentile } from "./stats";
import { closedLoop } from "./workload";

type Library = typeof import("@redlock-console/redlock");
type RedlockClass = Library["default"];
type Redlock = InstanceType<RedlockClass>;

const forceRounds = Number(process.env.SAFE_UNLOCK_ROUNDS ?? 30);
const costRounds = Number(process.env.BENCH_ROUNDS ?? 5);
const log = (message: string) => process.stderr.write(`[safe-unlock] ${message}\n`);

/** The console's force-release on one node (docs/holder-sessions.md): compare, then tombstone. */
const TOMBSTONE_LUA = `
if redis.call("get", KEYS[1]) ~= ARGV[1] then return "mismatch" end
local pttl = redis.call("pttl", KEYS[1])
redis.call("set", KEYS[1], ARGV[2], "PX", pttl + math.ceil(0.01 * tonumber(ARGV[3])) + 2)
return "replaced"
`;

async function subscribed(admins: readonly Redis[], channel: string): Promise<void> {
  for (;;) {
    const counts = await Promise.all(
      admins.map(async (admin) =>
        Number(((await admin.pubsub("NUMSUB", channel)) as unknown[])[1]),
      ),
    );
    if (counts.every((count) => count > 0)) return;
    await sleep(10);
  }
}

/** One force-release of a live using() holder: abort latency and overlap, ms. */
async function forceOnce(
  library: Library,
  holder: Redlock,
  contender: Redlock,
  admins: readonly Redis[],
): Promise<{ abortMs: number; overlapMs: number }> {
  const resource = `bench:safe-unlock:${randomUUID()}`;
  let held = () => undefined as void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  let abortedAt = 0;
  let settledAt = 0;
  const running = holder.using([resource], 10_000, async (signal) => {
    held();
    await new Promise((resolve) =>
      signal.addEventListener("abort", () => resolve((abortedAt = performance.now())), {
        once: true,
      }),
    );
    await sleep(50); // the routine winds down
    settledAt = performance.now();
  });
  await holding;
  const sessionId = holder.session!.id;
  await subscribed(admins, library.noticeChannel(sessionId));
  const value = (await admins[0]!.get(resource))!;
  const auditId = randomUUID();
  const tombstone = `rlx:${library.decodeValue(value)!.token}:${JSON.stringify({ auditId, by: "bench", reason: "bench", at: Date.now(), session: sessionId })}`;
  await Promise.all(
    admins.map((admin) => admin.eval(TOMBSTONE_LUA, 1, resource, value, tombstone, 10_000)),
  );
  const acquired = contender
    .acquire([resource], 10_000)
    .then((lock) => ({ lock, at: performance.now() }));
  const notice = JSON.stringify({ kind: "force-release", resource, auditId });
  const publishedAt = performance.now();
  await Promise.all(admins.map((admin) => admin.publish(library.noticeChannel(sessionId), notice)));
  await running;
  const { lock, at } = await acquired;
  await lock.release();
  return { abortMs: abortedAt - publishedAt, overlapMs: settledAt - at };
}

async function forceReleaseRounds(library: Library, urls: string[], admins: Redis[]) {
  const holderClients = await openClients(urls);
  const contenderClients = await openClients(urls);
  const holder = new library.default(holderClients);
  const contender = new library.default(contenderClients, {
    retryCount: -1,
    retryDelay: 10,
    retryJitter: 0,
  });
  const abortMs: number[] = [];
  const overlapMs: number[] = [];
  try {
    for (let round = 0; round < forceRounds; round += 1) {
      const result = await forceOnce(library, holder, contender, admins);
      abortMs.push(result.abortMs);
      overlapMs.push(result.overlapMs);
    }
  } finally {
    await Promise.all([holder.quit(), contender.quit()].map((quit) => quit.catch(() => undefined)));
  }
  log(`force-release: ${forceRounds} rounds, abort p50 ${median(abortMs).toFixed(2)} ms`);
  return { abortMs, overlapMs };
}

type Mode = "session" | "session: false";
const CASES = [
  { name: "sequential", workers: 1, durationMs: plan.sequential.durationMs },
  { name: "c64", workers: 64, durationMs: plan.throughput.durationMs },
];

async function throughput(
  Redlock: RedlockClass,
  urls: string[],
  mode: Mode,
  workers: number,
  durationMs: number,
) {
  const clients = await openClients(urls);
  const redlock = new Redlock(clients, mode === "session" ? {} : { session: false });
  const prefix = `bench:session:${randomUUID()}`;
  try {
    const loop = await closedLoop({
      workers,
      warmupMs: plan.throughput.warmupMs,
      durationMs,
      operation: async (worker) => {
        await (await redlock.acquire([`${prefix}:${worker}`], plan.ttlMs)).release();
      },
    });
    return { opsPerS: loop.opsPerS, cpuUsPerOp: loop.cpuUsPerOp };
  } finally {
    await sleep(100); // the last releases' minority deletes land before QUIT
    await redlock.quit().catch(() => undefined);
    closeClients(clients);
  }
}

async function heartbeatCost(Redlock: RedlockClass, urls: string[]) {
  const figures: Record<string, { opsPerS: number[]; cpuUsPerOp: number[] }> = {};
  for (let round = 0; round < costRounds; round += 1) {
    // Alternate which mode runs first, so warm-up and noise fall on both alike.
    const modes: Mode[] =
      round % 2 === 0 ? ["session", "session: false"] : ["session: false", "session"];
    for (const { name, workers, durationMs } of CASES)
      for (const mode of modes) {
        const result = await throughput(Redlock, urls, mode, workers, durationMs);
        const entry = (figures[`${name}|${mode}`] ??= { opsPerS: [], cpuUsPerOp: [] });
        entry.opsPerS.push(result.opsPerS);
        entry.cpuUsPerOp.push(result.cpuUsPerOp);
        log(`round ${round + 1}: ${name} ${mode}: ${Math.round(result.opsPerS)} pairs/s`);
      }
  }
  return figures;
}

/** Commands one idle session (after one acquire) sends each node per second, over `windowMs`. */
async function idleCommandsPerNodeS(
  Redlock: RedlockClass,
  urls: string[],
  admins: Redis[],
  windowMs = 5_000,
) {
  const clients = await openClients(urls);
  const redlock = new Redlock(clients);
  try {
    await (await redlock.acquire([`bench:idle:${randomUUID()}`], plan.ttlMs)).release();
    await sleep(500);
    await Promise.all(admins.map((admin) => admin.config("RESETSTAT")));
    await sleep(windowMs);
    const perNode = await Promise.all(
      admins.map(async (admin) => {
        const calls = await callsPerCommand([admin]);
        // Our own INFO and CONFIG reads are not the session's.
        const sent = Object.entries(calls).filter(([command]) => !/^(info|config)/.test(command));
        return sent.reduce((sum, [, count]) => sum + count, 0);
      }),
    );
    return perNode.map((count) => (count * 1000) / windowMs);
  } finally {
    await redlock.quit().catch(() => undefined);
  }
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

async function main(): Promise<void> {
  const startedMs = performance.now();
  const library = (await import(compileOurs())) as Library;
  const masters = await startMasters({
    count: 5,
    dataDir: `.data/bench-safe-unlock/${process.pid}`,
  });
  const admins = await openClients(masters.urls);
  try {
    const forced = await forceReleaseRounds(library, masters.urls, admins);
    const idlePerNodeS = await idleCommandsPerNodeS(library.default, masters.urls, admins);
    const figures = await heartbeatCost(library.default, masters.urls);
    const rows: Array<[string, string]> = [
      [
        `abort latency p50 / p95 (${forceRounds} rounds)`,
        `${ms(median(forced.abortMs))} / ${ms(percentile(forced.abortMs, 95))}`,
      ],
      ["overlap, max (≤ 0: none)", ms(Math.max(...forced.overlapMs))],
      ["contender's acquire after the routine settled, p50", ms(-median(forced.overlapMs))],
      [
        "idle session: commands per node per second",
        idlePerNodeS.map((rate) => rate.toFixed(1)).join(", "),
      ],
    ];
    for (const { name } of CASES) {
      const on = figures[`${name}|session`]!;
      const off = figures[`${name}|session: false`]!;
      rows.push([
        `${name}: pairs/s session / session: false (${costRounds} rounds)`,
        `${median(on.opsPerS).toFixed(0)} / ${median(off.opsPerS).toFixed(0)} (${(median(on.opsPerS) / median(off.opsPerS)).toFixed(3)}x), CPU ${median(on.cpuUsPerOp).toFixed(0)} / ${median(off.cpuUsPerOp).toFixed(0)} µs per pair`,
      ]);
    }
    const width = Math.max(...rows.map(([label]) => label.length));
    process.stdout.write(
      `\n${rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join("\n")}\n\n`,
    );
    writeResults(new URL("./results/safe-unlock.json", import.meta.url).pathname, {
      generatedAt: new Date().toISOString(),
      durationS: (performance.now() - startedMs) / 1000,
      forceRounds,
      costRounds,
      forced,
      idlePerNodeS,
      figures,
    });
  } finally {
    closeClients(admins);
    await masters.stop();
  }
}

await main();
