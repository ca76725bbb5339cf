/**
 * Where a single caller's acquire+release time goes, in two measurements (README "Performance"):
 *   npx tsx bench/single-caller-cost.ts
 * 1. The libraries' own CPU per pair, driven by in-memory clients that answer at once (no I/O).
 * 2. A bare client (no library: one call to each of the five masters, done at three replies)
 *    sending our commands (a one-resource acquire's plain SET NX PX and release script, with the
 *    owner in the value and with a bare token), and
 *    node-redlock's scripts, beside both libraries, on the same masters, interleaved rounds: what
 *    the commands alone cost (pairs/s, and Redis CPU per pair over the five masters from INFO
 *    commandstats), and
 *    the floor. The bare client with node-redlock's scripts runs no library code at all and
 *    decides at three replies of five: no library on the same client that does the same Redis
 *    work can go faster.
 */
import { EventEmitter } from "node:events";
import type { Redis } from "ioredis";
import NodeRedlock from "redlock";
import { startMasters } from "@/scripts/redis-masters";
import { commandStats } from "@/scripts/command-stats";
import { ACQUIRE_ONE } from "@/lib/redlock/acquire";
import { waitersKey } from "@/lib/redlock/keys";
import { RELEASE_ONE } from "@/lib/redlock/release";
import { encodeValue } from "@/lib/redlock/value";
import { defineScript, type Script } from "@/lib/redlock/script";
import { closeClients, openClients } from "./clients";
import { createAdapter, loadOurs, ourRedlockClass, type LockAdapter } from "./peers";
import { median, percentile } from "./stats";
import { closedLoop } from "./workload";

// Compiled like the peers ship (see compile-ours.ts), once for both parts; the scripts above are
// plain strings either way.
await loadOurs();
const Ours = ourRedlockClass();

/**
 * Answers every call at once: 1 (a vote for), {1, 0} for an acquire script (count, fence), OK for
 * a plain SET.
 */
class InstantClient extends EventEmitter {
  readonly isCluster = true; // the client's own evalsha, no socket
  readonly status = "ready";
  readonly options = {};
  evalsha(_sha: string, keyCount: number, ...keysAndArgs: unknown[]): Promise<unknown> {
    const args = keysAndArgs.slice(keyCount);
    return Promise.resolve(args.length >= 3 && Number(args[1]) >= 1_000 ? [1, 0] : 1);
  }
  eval(body: string, keyCount: number, ...keysAndArgs: unknown[]): Promise<unknown> {
    return this.evalsha(body, keyCount, ...keysAndArgs);
  }
  /** A one-resource acquire's plain SET NX PX. */
  call(): Promise<unknown> {
    return Promise.resolve("OK");
  }
  info(): Promise<string> {
    return Promise.resolve("uptime_in_seconds:100000\r\nrun_id:instant\r\n");
  }
}

interface Locker {
  acquire(resources: string[], ttlMs: number): Promise<unknown>;
  release(lock: never): Promise<unknown>;
}

async function cpuPerPairUs(locker: Locker, pairs: number): Promise<number> {
  const start = process.cpuUsage();
  for (let index = 0; index < pairs; index += 1)
    await locker.release((await locker.acquire(["cost"], 10_000)) as never);
  const cpu = process.cpuUsage(start);
  return (cpu.user + cpu.system) / pairs;
}

const instantClients = () => Array.from({ length: 5 }, () => new InstantClient() as never);
const lockers: Record<string, () => Locker> = {
  ours: () => new Ours(instantClients()),
  "node-redlock": () => new NodeRedlock(instantClients()) as unknown as Locker,
};
const cpuUs: Record<string, number[]> = {};
for (let round = 0; round < 5; round += 1)
  for (const [name, make] of Object.entries(lockers)) {
    const locker = make();
    await cpuPerPairUs(locker, 20_000); // warm-up
    (cpuUs[name] ??= []).push(await cpuPerPairUs(locker, 100_000));
  }
console.log("1. library CPU per acquire+release, in-memory clients (median of 5 rounds):");
for (const [name, figures] of Object.entries(cpuUs))
  console.log(`   ${name.padEnd(14)} ${median(figures).toFixed(1)} µs`);

// node-redlock 5's scripts, as it sends them (one resource: EXISTS+SET, GET+DEL).
const PEER_ACQUIRE = defineScript<readonly [string, number], number>(`
  for i, key in ipairs(KEYS) do
    if redis.call("exists", key) == 1 then
      return 0
    end
  end
  for i, key in ipairs(KEYS) do
    redis.call("set", key, ARGV[1], "PX", ARGV[2])
  end
  return #KEYS
`);
const PEER_RELEASE = defineScript<readonly [string], number>(`
  local count = 0
  for i, key in ipairs(KEYS) do
    if redis.call("get", key) == ARGV[1] then
      redis.pcall("del", key)
      count = count + 1
    end
  end
  return count
`);

const OWNER_JSON = JSON.stringify({ host: "bench", pid: "1", service: "billing" });

interface Call {
  keys: string[];
  args: (string | number)[];
}

/**
 * Sends `script` to every client (with `quiet`'s keys and args to the last two, as the library's
 * release wakes waiters from the first three only), resolves at the third reply (as a quorum of
 * five would).
 */
function atQuorum(
  clients: Redis[],
  script: Script,
  keys: string[],
  args: (string | number)[],
  quiet?: Call,
) {
  return new Promise<void>((resolve) => {
    let replies = 0;
    for (const [index, client] of clients.entries())
      void (
        quiet && index >= 3
          ? script.run(client, quiet.keys, quiet.args)
          : script.run(client, keys, args)
      ).then(() => {
        replies += 1;
        if (replies === 3) resolve();
      });
  });
}

type ScriptSet =
  "ours, owner on" | "ours, owner on, acquire by EVALSHA" | "ours, owner off" | "node-redlock's";

/** ACQUIRE_ONE's body as a script call, as a one-resource acquire went before the plain SET NX PX. */
const ACQUIRE_ONE_SCRIPT = defineScript<readonly [string, number], number>(ACQUIRE_ONE.body);
type Row =
  | `bare, ${ScriptSet} scripts`
  | "library: ours"
  | "library: ours, owner: false"
  | "library: node-redlock";
function bareClient(clients: Redis[], scripts: ScriptSet): LockAdapter {
  let counter = 0;
  return {
    async acquire(resource, ttlMs) {
      const token = `${process.pid}-${(counter += 1)}`.padEnd(40, "0");
      if (scripts === "node-redlock's") {
        await atQuorum(clients, PEER_ACQUIRE, [resource], [token, ttlMs]);
        return { handle: { keys: [resource], args: [token] }, attempts: 1 };
      }
      const owner = scripts.startsWith("ours, owner on") ? OWNER_JSON : undefined;
      const value = encodeValue(token, owner, Date.now(), ttlMs);
      const acquireScript = scripts.endsWith("EVALSHA") ? ACQUIRE_ONE_SCRIPT : ACQUIRE_ONE;
      await atQuorum(clients, acquireScript, [resource], [value, ttlMs]);
      // As the library at its defaults releases: waking the next waiter (none here) from the
      // waiters set on the first three nodes, a plain compare-and-delete on the other two.
      return {
        handle: {
          script: RELEASE_ONE,
          keys: [resource, waitersKey(resource)],
          args: [value, 1, Date.now()],
          quiet: { keys: [resource], args: [value, 0, Date.now()] },
        },
        attempts: 1,
      };
    },
    async release(handle) {
      const { script, keys, args, quiet } = handle as Call & { script?: Script; quiet?: Call };
      await atQuorum(clients, script ?? PEER_RELEASE, keys, args, quiet);
    },
    quit: async () => closeClients(clients),
  };
}

const masters = await startMasters({ count: 5, dataDir: `.data/bench-cost/${process.pid}` });
try {
  const rows: Row[] = [
    "bare, ours, owner on scripts",
    "bare, ours, owner on, acquire by EVALSHA scripts",
    "bare, ours, owner off scripts",
    "bare, node-redlock's scripts",
    "library: ours",
    "library: ours, owner: false",
    "library: node-redlock",
  ];
  const opened = await Promise.all(rows.map(() => openClients(masters.urls)));
  const adapters = rows.map((row, index) => {
    const clients = opened[index]!;
    if (row === "library: ours") return createAdapter("ours", clients);
    if (row === "library: ours, owner: false")
      return createAdapter("ours", clients, { owner: false });
    if (row === "library: node-redlock") return createAdapter("node-redlock", clients);
    return bareClient(clients, row.replace(/^bare, | scripts$/g, "") as ScriptSet);
  });
  const admins = await openClients(masters.urls);
  /** Redis CPU over every lock command since RESETSTAT (INFO commandstats usec, all masters), µs. */
  const redisLockUs = async () => {
    let usec = 0;
    for (const [command, stat] of Object.entries(await commandStats(admins)))
      if (!/^(info|config)/.test(command)) usec += stat.usec;
    return usec;
  };
  const figures: Record<
    string,
    { opsPerS: number[]; p50Ms: number[]; p99Ms: number[]; redisUs: number[]; cpuUs: number[] }
  > = {};
  for (let round = 0; round < 8; round += 1) {
    const order = rows.map((_, index) => (index + round) % rows.length);
    for (const index of order) {
      const row = rows[index]!;
      const adapter = adapters[index]!;
      const resource = `bench:cost:${row}`;
      await Promise.all(admins.map((admin) => admin.config("RESETSTAT")));
      let pairs = 0; // warm-up included, as RESETSTAT was before it
      const loop = await closedLoop({
        workers: 1,
        warmupMs: 200,
        durationMs: 1_000,
        operation: async () => {
          pairs += 1;
          await adapter.release((await adapter.acquire(resource, 10_000)).handle);
        },
      });
      const entry = (figures[row] ??= {
        opsPerS: [],
        p50Ms: [],
        p99Ms: [],
        redisUs: [],
        cpuUs: [],
      });
      entry.redisUs.push((await redisLockUs()) / pairs);
      entry.opsPerS.push(loop.opsPerS);
      entry.cpuUs.push(loop.cpuUsPerOp);
      entry.p50Ms.push(percentile(loop.latenciesMs, 50));
      entry.p99Ms.push(percentile(loop.latenciesMs, 99));
    }
  }
  const peer = median(figures["library: node-redlock"]!.opsPerS);
  console.log(
    "2. sequential acquire+release, same masters (median of 8 interleaved rounds), vs node-redlock:",
  );
  for (const row of rows) {
    const { opsPerS, p50Ms, p99Ms, redisUs, cpuUs } = figures[row]!;
    console.log(
      `   ${row.padEnd(38)} ${median(opsPerS).toFixed(0).padStart(5)} pairs/s (${(median(opsPerS) / peer).toFixed(2)}x), p50 ${median(p50Ms).toFixed(3)} ms, p99 ${median(p99Ms).toFixed(3)} ms, Redis ${median(redisUs).toFixed(1)} µs CPU per pair (5 masters), this process ${median(cpuUs).toFixed(0)} µs CPU per pair`,
    );
  }
  opened.forEach(closeClients);
  closeClients(admins);
} finally {
  await masters.stop();
}
