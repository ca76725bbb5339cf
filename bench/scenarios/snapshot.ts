/**
 * The console's lock snapshot (lib/server) on five nodes that also hold 100k unrelated keys each:
 * time and Redis commands per snapshot at 1k / 10k / 50k locks, and the Redis load of 50
 * concurrent pollers vs one (the snapshot is single-flight, so it should be the same).
 */
import { register } from "node:module";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { plan } from "../config";
import { commandsExecuted } from "../redis-info";
import { seedLocks, seedOtherKeys } from "../seed";
import { median } from "../stats";

register("../server-only-hooks.mjs", import.meta.url);
const { createConsole } = await import("@/lib/server/console");
const { configFor } = await import("@/lib/server/config");

type Figures = Record<string, number>;
const LOCK_PREFIX = "lock:";
/** The poller comparison runs on the 10k-lock keyspace. */
const POLLED_LOCK_COUNT = 10_000;
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

function openConsole(urls: readonly string[], snapshotMaxAgeMs: number) {
  return createConsole(
    configFor(urls, {
      lockMatch: [`${LOCK_PREFIX}*`],
      snapshotMaxAgeMs,
      logLevel: "silent",
      probeIntervalMs: 0,
    }),
  );
}

/** Counts the commands `clients` send (pipelined ones included), by wrapping their sendCommand. */
function countSent(clients: readonly Redis[]): () => number {
  let sent = 0;
  for (const client of clients) {
    const send = client.sendCommand.bind(client);
    client.sendCommand = (...args: Parameters<Redis["sendCommand"]>) => {
      sent += 1;
      return send(...args);
    };
  }
  return () => sent;
}

/**
 * Median time of a fresh (uncached) snapshot, the commands the console sent for it, the commands
 * Redis executed for it (INFO commandstats, which also counts calls made inside scripts), and
 * whether it saw every lock (worst round).
 */
async function measureSnapshots(
  urls: readonly string[],
  admins: readonly Redis[],
  lockCount: number,
): Promise<Figures> {
  const consoleServer = openConsole(urls, 0);
  const timesMs: number[] = [];
  const executed: number[] = [];
  const sent: number[] = [];
  const seen: number[] = [];
  const unreachable: number[] = [];
  const sentSoFar = countSent(consoleServer.registry.nodes.map((node) => node.client));
  try {
    await consoleServer.snapshot(); // connects the clients; not counted
    for (let index = 0; index < plan.snapshot.rounds; index += 1) {
      const before = await commandsExecuted(admins);
      const sentBefore = sentSoFar();
      const startMs = performance.now();
      const snapshot = await consoleServer.snapshot();
      timesMs.push(performance.now() - startMs);
      sent.push(sentSoFar() - sentBefore);
      executed.push((await commandsExecuted(admins)) - before);
      // A node that misses the console's per-command timeout drops out of the snapshot: report it.
      seen.push(snapshot.counts.held);
      unreachable.push(snapshot.unreachableNodes.length);
    }
  } finally {
    await consoleServer.close();
  }
  return {
    snapshotMs: median(timesMs),
    commandsSent: median(sent),
    commandsExecuted: median(executed),
    locksSeenPct: (100 * Math.min(...seen)) / lockCount,
    unreachableNodes: Math.max(...unreachable),
  };
}

/** Redis commands per second while `pollers` viewers each poll the shared snapshot every 200 ms. */
async function pollLoad(
  urls: readonly string[],
  admins: readonly Redis[],
  pollers: number,
  windowMs: number,
) {
  const consoleServer = openConsole(urls, configFor(urls).snapshotMaxAgeMs);
  const latenciesMs: number[] = [];
  try {
    await consoleServer.snapshot();
    const before = await commandsExecuted(admins);
    const startMs = performance.now();
    const poll = async () => {
      while (performance.now() - startMs < windowMs) {
        const pollStartMs = performance.now();
        await consoleServer.snapshot();
        latenciesMs.push(performance.now() - pollStartMs);
        await sleep(200);
      }
    };
    await Promise.all(Array.from({ length: pollers }, poll));
    const elapsedS = (performance.now() - startMs) / 1000;
    return {
      commandsPerS: ((await commandsExecuted(admins)) - before) / elapsedS,
      pollP50Ms: median(latenciesMs),
    };
  } finally {
    await consoleServer.close();
  }
}

export async function consoleSnapshot(
  urls: readonly string[],
  admins: readonly Redis[],
): Promise<Record<string, { ours: Figures }>> {
  const { lockCounts, otherKeysPerNode, pollers } = plan.snapshot;
  log(`snapshot: seeding ${otherKeysPerNode} other keys per node`);
  await seedOtherKeys(admins, "app:", otherKeysPerNode);
  const results: Record<string, { ours: Figures }> = {};
  let seeded = 0;
  for (const lockCount of lockCounts) {
    await seedLocks(admins, LOCK_PREFIX, seeded, lockCount, 600_000);
    seeded = lockCount;
    log(`snapshot: ${lockCount} locks`);
    results[`snapshot ${lockCount / 1000}k locks`] = {
      ours: await measureSnapshots(urls, admins, lockCount),
    };
    if (lockCount !== POLLED_LOCK_COUNT) continue;
    log(`snapshot: 1 vs ${pollers} pollers on ${lockCount / 1000}k locks`);
    const one = await pollLoad(urls, admins, 1, plan.snapshot.pollWindowMs);
    const many = await pollLoad(urls, admins, pollers, plan.snapshot.pollWindowMs);
    results[`snapshot ${pollers} pollers vs 1`] = {
      ours: {
        commandsPerS1: one.commandsPerS,
        commandsPerSMany: many.commandsPerS,
        loadRatio: many.commandsPerS / one.commandsPerS,
        pollP50Ms1: one.pollP50Ms,
        pollP50MsMany: many.pollP50Ms,
      },
    };
  }
  await Promise.all(admins.map((admin) => admin.flushall()));
  return results;
}
