/**
 * Crash faults on the stack's shared masters: SIGKILL one (it refuses connections, as a master
 * shut down does) and start it again empty on the same port, as scripts/redis-masters.ts'
 * restartEmpty does. The new process is recorded in stack.json, so later specs pause the right PID
 * and e2e/stack.ts stops it at the end.
 */
import net from "node:net";
import path from "node:path";
import { rmSync, writeFileSync } from "node:fs";
import { spawnRedisServer, waitForPong } from "../../scripts/redis-masters";
import { MASTERS_DIR, STACK_FILE, readStack } from "../stack-file";

const portOf = (index: number) => Number(new URL(readStack().urls[index]!).port);

async function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

/** SIGKILL master `index`; resolves once its port refuses connections. Returns the port. */
export async function killMaster(index: number): Promise<number> {
  const port = portOf(index);
  process.kill(readStack().pids[index]!, "SIGKILL");
  const deadlineMs = Date.now() + 10_000;
  while (!(await refuses(port))) {
    if (Date.now() > deadlineMs) throw new Error(`port ${port} still accepts after SIGKILL`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return port;
}

/** Starts master `index` again on its port with an empty data dir (no AOF: nothing to reload). */
export async function startMasterEmpty(index: number): Promise<void> {
  const port = portOf(index);
  const dir = path.join(MASTERS_DIR, String(port));
  rmSync(dir, { recursive: true, force: true });
  // The same settings as the stack's masters (scripts/redis-masters.ts spawnMaster).
  const child = spawnRedisServer(port, dir, [
    ...["--daemonize", "no", "--logfile", "redis.log"],
    ...["--appendonly", "no", "--appendfsync", "everysec"],
  ]);
  child.unref();
  await waitForPong(port, 10_000);
  const stack = readStack();
  stack.pids[index] = child.pid!;
  writeFileSync(STACK_FILE, JSON.stringify(stack, null, 2));
}
