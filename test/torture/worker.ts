/**
 * A torture-test worker: a separate process that loops acquire -> critical section (two writes to
 * the fenced store with its token) -> release, and reports each step to the parent over IPC.
 * Started by worker-pool.ts with `node --import tsx`; it waits for a "start" message.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import Redlock, { type Lock } from "@redlock-console/redlock";
import type { ParentMessage, WorkerConfig, WorkerMessage } from "./events";
import { FencedStore } from "./fenced-store";
import { between, pickOne, seededRandom } from "./random";

let stopping = false;
let pendingOverrunMs = 0;

const send = (message: WorkerMessage) => process.send?.(message);

function pickResources(random: () => number, resources: string[]): string[] {
  const first = pickOne(random, resources);
  // Some locks span two resources, to exercise all-or-nothing multi-resource locks.
  if (resources.length < 2 || random() >= 0.2) return [first];
  return [
    first,
    pickOne(
      random,
      resources.filter((resource) => resource !== first),
    ),
  ];
}

async function writeAll(store: FencedStore, lock: Lock, step: string): Promise<void> {
  for (const resource of lock.resources) {
    const token = lock.fencingToken ?? -1;
    const sentAt = Date.now();
    const accepted = await store.write(
      resource,
      token,
      lock.value,
      `${step} by ${lock.value.slice(0, 8)}`,
    );
    send({
      type: "write",
      value: lock.value,
      resource,
      token,
      sentAt,
      doneAt: Date.now(),
      accepted,
    });
  }
}

/** The middle of the critical section: a short task, sometimes an extension, or an overrun past the TTL. */
async function work(lock: Lock, config: WorkerConfig, random: () => number): Promise<Lock> {
  await sleep(between(random, 1, 5));
  if (pendingOverrunMs > 0) {
    // No validity check before the next write: that is exactly the stale holder fencing must stop.
    const overrunMs = pendingOverrunMs;
    pendingOverrunMs = 0;
    await sleep(config.ttlMs + overrunMs);
    return lock;
  }
  if (random() >= 0.15) return lock;
  try {
    const extended = await lock.extend(config.ttlMs);
    send({ type: "extended", value: extended.value, expiration: extended.expiration });
    return extended;
  } catch {
    return lock; // lost or expired: the second write will tell whether fencing refuses it
  }
}

async function cycle(
  redlock: Redlock,
  store: FencedStore,
  config: WorkerConfig,
  random: () => number,
): Promise<void> {
  const resources = pickResources(random, config.resources);
  let lock: Lock;
  try {
    lock = await redlock.acquire(resources, config.ttlMs);
  } catch (error) {
    send({ type: "acquire-failed", workerId: config.workerId, message: (error as Error).message });
    return;
  }
  const acquiredAt = Date.now();
  const { value, fencingToken: token, expiration } = lock;
  send({
    type: "held",
    workerId: config.workerId,
    value,
    resources,
    token,
    ttlMs: config.ttlMs,
    acquiredAt,
    expiration,
  });
  await writeAll(store, lock, "begin");
  lock = await work(lock, config, random);
  await writeAll(store, lock, "end");
  send({ type: "releasing", value, at: Date.now() });
  await lock.release();
  send({ type: "cycle", workerId: config.workerId });
}

async function run(config: WorkerConfig): Promise<void> {
  const connect = (url: string) =>
    new Redis(url, { maxRetriesPerRequest: null }).on("error", () => undefined);
  const clients = config.nodeUrls.map(connect);
  const storeClient = connect(config.storeUrl);
  const redlock = new Redlock(clients, {
    fencing: true,
    restartQuarantine: config.restartQuarantineMs,
    retryCount: 60,
    retryDelay: 25,
    retryJitter: 20,
    nodeTimeout: 200,
  });
  const store = new FencedStore(storeClient);
  const random = seededRandom(config.seed);
  send({ type: "ready", workerId: config.workerId });
  while (!stopping) await cycle(redlock, store, config, random);
  [...clients, storeClient].forEach((client) => client.disconnect());
  send({ type: "done", workerId: config.workerId });
  process.disconnect?.();
}

process.on("message", (message: ParentMessage) => {
  if (message.type === "start") void run(message.config);
  if (message.type === "overrun") pendingOverrunMs = message.byMs;
  if (message.type === "stop") stopping = true;
});
