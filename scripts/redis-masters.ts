/**
 * Starts and stops independent local `redis-server` masters: the embedded mode of `npm start`,
 * the test suite and the benchmarks all use it. Each master gets its own data dir under `.data/`.
 * Fault helpers (pause, resume, crash, restart empty) send real signals to real processes.
 */
import { NEEDED_EVENT_FLAGS } from "../lib/server/locks/watch/events/event-flags";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import net from "node:net";
import path from "node:path";

export interface MastersOptions {
  /** How many masters. @default 5 */
  count?: number;
  /** Ports to use, one per master; unset: free ports picked by the OS. */
  ports?: number[];
  /** Parent of each master's data dir. @default ".data/masters" */
  dataDir?: string;
  /** Append-only file with fsync every second, so a clean restart keeps locks. @default false */
  persistence?: boolean;
  /** How long to wait for each master to answer PING. @default 10_000 */
  startTimeoutMs?: number;
}

export interface Master {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  pid(): number;
}

export interface Masters {
  readonly masters: Master[];
  readonly urls: string[];
  /** SIGSTOP: the process holds its sockets open but answers nothing, like a partitioned node. */
  pause(index: number): void;
  /** SIGCONT after pause. */
  resume(index: number): void;
  /** SIGKILL, wipe its data dir, and start it again on the same port: a crash that loses every key. */
  restartEmpty(index: number): Promise<void>;
  /** Stops every master (SIGTERM, then SIGKILL after a grace period). */
  stop(): Promise<void>;
}

export class MastersError extends Error {
  override name = "MastersError";
}

export function assertRedisServerInstalled(): void {
  const probe = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  if (probe.error) {
    throw new MastersError(
      "redis-server was not found on PATH: install Redis (for example `apt-get install redis-server`) or set REDLOCK_NODES to existing masters.",
    );
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function isPortTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Sends a raw PING until the server answers +PONG, so readiness needs no client library. */
export async function waitForPong(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const answered = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ port, host: "127.0.0.1" });
      socket.setTimeout(500, () => {
        socket.destroy();
        resolve(false);
      });
      socket.once("connect", () => socket.write("PING\r\n"));
      socket.once("data", (data) => {
        socket.destroy();
        resolve(data.toString().startsWith("+PONG"));
      });
      socket.once("error", () => resolve(false));
    });
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new MastersError(
    `redis-server on port ${port} did not answer PING within ${timeoutMs} ms.`,
  );
}

/**
 * A redis-server on loopback `port` with its data in `dir`: no RDB snapshots, and the keyspace
 * notifications the console's live index follows; `extraArgs` after those.
 */
export function spawnRedisServer(
  port: number,
  dir: string,
  extraArgs: readonly string[] = [],
): ChildProcess {
  mkdirSync(dir, { recursive: true });
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--save",
    "",
    "--notify-keyspace-events",
    NEEDED_EVENT_FLAGS,
    ...extraArgs,
  ];
  const child = spawn("redis-server", args, { stdio: "ignore" });
  child.on("error", () => undefined);
  return child;
}

function spawnMaster(port: number, dir: string, persistence: boolean): ChildProcess {
  return spawnRedisServer(port, dir, [
    "--daemonize",
    "no",
    "--logfile",
    "redis.log",
    "--appendonly",
    persistence ? "yes" : "no",
    "--appendfsync",
    "everysec",
  ]);
}

async function stopProcess(child: ChildProcess, graceMs = 2_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    process.kill(child.pid!, "SIGCONT"); // a paused process cannot act on SIGTERM
    child.kill("SIGTERM");
  } catch {
    return;
  }
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** The pid of the redis-server answering on loopback `port` (its INFO server's process_id). */
export async function pidOnPort(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    let reply = "";
    const done = (pid: number | null) => {
      socket.destroy();
      resolve(pid);
    };
    socket.setTimeout(2_000, () => done(null));
    socket.once("connect", () => socket.write("INFO server\r\n"));
    socket.on("data", (data) => {
      reply += data.toString();
      const found = /process_id:(\d+)/.exec(reply);
      if (found) done(Number(found[1]));
    });
    socket.once("error", () => done(null));
  });
}

/** Attempts at a set of ports another process took between the check and the bind. */
const PORT_CLASH_ATTEMPTS = 5;

export async function startMasters(options: MastersOptions = {}): Promise<Masters> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startMastersOnce(options);
    } catch (error) {
      if (!(error instanceof PortClashError) || options.ports || attempt >= PORT_CLASH_ATTEMPTS)
        throw error;
    }
  }
}

/**
 * Another process's redis-server took a port between the free-port check and our server's bind:
 * ours exited, and a PING would have been answered by the other (whose test then stops it under
 * ours). Seen with two vitest runs at once on one machine, whose workers share port ranges.
 */
class PortClashError extends MastersError {}

async function startMastersOnce(options: MastersOptions): Promise<Masters> {
  const count = options.ports?.length ?? options.count ?? 5;
  const dataDir = path.resolve(options.dataDir ?? ".data/masters");
  const persistence = options.persistence ?? false;
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  assertRedisServerInstalled();

  const ports = options.ports ?? (await uniqueFreePorts(count));
  for (const port of ports) {
    if (await isPortTaken(port)) {
      throw new MastersError(
        `Port ${port} is already in use: choose other ports or stop what listens there.`,
      );
    }
  }

  const children: ChildProcess[] = [];
  const masters: Master[] = ports.map((port, index) => {
    const dir = path.join(dataDir, String(port));
    rmSync(dir, { recursive: true, force: true });
    children[index] = spawnMaster(port, dir, persistence);
    return { port, dir, url: `redis://127.0.0.1:${port}`, pid: () => children[index]!.pid ?? -1 };
  });

  const stop = async () => {
    await Promise.all(children.map((child) => stopProcess(child)));
  };
  try {
    await Promise.all(ports.map((port) => waitForPong(port, startTimeoutMs)));
    const pids = await Promise.all(ports.map((port) => pidOnPort(port)));
    const taken = ports.filter((_, index) => pids[index] !== children[index]!.pid);
    if (taken.length > 0) {
      throw new PortClashError(`Ports ${taken.join(", ")} are served by another redis-server.`);
    }
  } catch (error) {
    await stop();
    throw error;
  }

  const signal = (index: number, name: NodeJS.Signals) => {
    const child = children[index];
    if (!child?.pid) throw new MastersError(`No master at index ${index}.`);
    process.kill(child.pid, name);
  };

  return {
    masters,
    urls: masters.map((master) => master.url),
    pause: (index) => signal(index, "SIGSTOP"),
    resume: (index) => signal(index, "SIGCONT"),
    restartEmpty: async (index) => {
      const master = masters[index]!;
      const child = children[index]!;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        child.kill("SIGKILL");
        await exited;
      }
      rmSync(master.dir, { recursive: true, force: true });
      children[index] = spawnMaster(master.port, master.dir, persistence);
      await waitForPong(master.port, startTimeoutMs);
    },
    stop,
  };
}

/** Ports handed out by uniqueFreePorts in this process: freePort() may hand the same one out twice. */
const handedOut = new Set<number>();

/**
 * A vitest or Playwright worker's own range of ports, or null outside one. Test files run in parallel, each in
 * a worker process: a port the OS calls free in one worker could be handed to another before its
 * redis-server binds it (and a test would then talk to another test's server). Workers running at
 * once have distinct VITEST_POOL_IDs, so each takes ports from a range of its own, below the OS's
 * ephemeral range (32768 on) where freePort() and the global setup's masters live, and a cluster
 * node's bus port (port + 10000) stays below it too.
 */
function workerPortRange(): { first: number; last: number } | null {
  const poolId = Number(process.env.VITEST_POOL_ID);
  if (Number.isInteger(poolId) && poolId >= 1) {
    const first = 10_000 + (poolId % 10) * 1_000;
    return { first, last: first + 999 };
  }
  // A Playwright worker (its specs start clusters of their own beside the other worker's).
  const parallelIndex = process.env.TEST_PARALLEL_INDEX;
  if (parallelIndex === undefined || !/^\d+$/.test(parallelIndex)) return null;
  const first = 20_000 + (Number(parallelIndex) % 10) * 1_000;
  return { first, last: first + 999 };
}

let nextInRange: number | undefined;

/** `count` free loopback ports, none handed out before in this process (masters and clusters alike). */
export async function uniqueFreePorts(count: number): Promise<number[]> {
  const range = workerPortRange();
  const ports: number[] = [];
  while (ports.length < count) {
    let port: number;
    if (range) {
      // A random start: the files a worker runs one after another do not all begin at its first port.
      nextInRange ??= range.first + Math.floor(Math.random() * 1_000);
      port = nextInRange > range.last ? range.first : nextInRange;
      nextInRange = port + 1;
      if (await isPortTaken(port)) continue;
    } else port = await freePort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    ports.push(port);
  }
  return ports;
}
