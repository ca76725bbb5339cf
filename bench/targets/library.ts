/**
 * The library's latency targets (issue 48): how soon a holder hears the console, a waiter is
 * woken, and a hung node stops mattering. Their tests keep what holds at any speed (an abort before
 * any extension, a wake before the retry, a retry that skips an overdue node unsent); the figures
 * the docs quote are these. Each scenario is the test's, played on the bench's five masters, the
 * console's writes by test/redlock/fixtures/console-writes.ts. A hung node is a CLIENT PAUSE (the
 * bench does not own the masters' processes to SIGSTOP them): its clients' commands wait alike.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import Redlock, { queueKey, waitersKey, type RedlockAbortSignal } from "@redlock-console/redlock";
import {
  act,
  publishNotice,
  subscribedEverywhere,
  writeRevokeMarker,
  writeTombstone,
} from "@/test/redlock/fixtures/console-writes";
import { closeClients, openClients } from "../clients";
import type { LatencyTarget, TargetRun } from "./target";

/** Long enough that no extension comes during a sample: only the notice can tell the routine. */
const HOLD_TTL_MS = 10_000;
/** A bound for a hang of the scenario itself, not a timing. */
const SCENARIO_DEADLINE_MS = 20_000;

/** Polls `check` until it holds; throws past the deadline (the scenario is broken, not slow). */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadlineMs = performance.now() + SCENARIO_DEADLINE_MS;
  while (!(await check())) {
    if (performance.now() > deadlineMs) throw new Error(`${what}: not within 20 s`);
    await sleep(10);
  }
}

const abortedAt = (signal: AbortSignal) =>
  new Promise<number>((resolve) =>
    signal.addEventListener("abort", () => resolve(performance.now()), { once: true }),
  );

/** A using() routine that runs until its signal aborts; resolves once it holds the lock. */
async function holdUntilAborted(redlock: Redlock, resource: string) {
  let holding: (signal: RedlockAbortSignal) => void = () => undefined;
  const held = new Promise<RedlockAbortSignal>((resolve) => (holding = resolve));
  const running = redlock.using([resource], HOLD_TTL_MS, async (signal) => {
    holding(signal);
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
  });
  const signal = await Promise.race([held, running.then(() => held)]);
  return { running, signal };
}

/** A holder instance and readers (the console's connections) on the bench's masters. */
async function holderAndReaders(urls: readonly string[]) {
  const clients = await openClients(urls);
  const readers = await openClients(urls);
  const holder = new Redlock(clients, { retryCount: 3, automaticExtensionThreshold: 500 });
  const close = async () => {
    await holder.quit().catch(() => undefined);
    closeClients(clients);
    closeClients(readers);
  };
  return { holder, readers, close };
}

/**
 * From the notice's PUBLISH to the signal's abort, for `locks` routines of one session at once
 * (a session release); a sample is the slowest routine.
 */
function noticeRun(kind: "force-release" | "revoke", locks: number) {
  return async ({ urls }: { urls: readonly string[] }): Promise<TargetRun> => {
    const { holder, readers, close } = await holderAndReaders(urls);
    const servers = readers.map((reader) => [reader]);
    return {
      async sample() {
        const resources = Array.from({ length: locks }, () => `bench:notice:${randomUUID()}`);
        const held = await Promise.all(
          resources.map((resource) => holdUntilAborted(holder, resource)),
        );
        await until("the session's subscription", () =>
          subscribedEverywhere(servers, holder.session!.id),
        );
        const action = act(`bench ${kind}`);
        for (const resource of resources) {
          const value = (await readers[0]!.get(resource))!;
          if (kind === "force-release") await writeTombstone(readers, resource, value, action);
          else await writeRevokeMarker(readers, resource, value, action, Date.now() + 5_000);
        }
        const aborted = held.map(({ signal }) => abortedAt(signal));
        const publishedAt = performance.now();
        for (const resource of resources)
          await publishNotice(readers, holder.session!.id, kind, resource, action.auditId);
        const latestMs = Math.max(...(await Promise.all(aborted))) - publishedAt;
        await Promise.all(held.map(({ running }) => running));
        return latestMs;
      },
      close,
    };
  };
}

/** Whether a waiter is listed in `key` with its wake channel on three nodes (who wake it). */
async function listedWithWake(readers: readonly Redis[], key: string): Promise<boolean> {
  const members = await Promise.all(readers.map((reader) => reader.zrange(key, 0, -1)));
  return members.filter((node) => node.some((member) => member.includes('"wake":'))).length >= 3;
}

/** From the holder's release to the waiting contender's lock, its retry 10 s away. */
async function handoffRun({ urls }: { urls: readonly string[] }): Promise<TargetRun> {
  const { holder, readers, close: closeHolder } = await holderAndReaders(urls);
  const contenderClients = await openClients(urls);
  const contender = new Redlock(contenderClients, {
    retryCount: 3,
    retryDelay: 10_000,
    retryJitter: 0,
  });
  return {
    async sample() {
      const resource = `bench:handoff:${randomUUID()}`;
      const lock = await holder.acquire([resource], 30_000);
      const pending = contender.acquire([resource], 30_000);
      await until("the waiter's listing", () => listedWithWake(readers, waitersKey(resource)));
      const releasedAt = performance.now();
      await lock.release();
      const next = await pending;
      const handedOverMs = performance.now() - releasedAt;
      await next.release();
      return handedOverMs;
    },
    async close() {
      await contender.quit().catch(() => undefined);
      closeClients(contenderClients);
      await closeHolder();
    },
  };
}

/**
 * From the release of one of a semaphore's two permits to the waiter's permit, its retry 20 s away
 * (test/redlock/semaphore.test.ts).
 */
async function permitHandoffRun({ urls }: { urls: readonly string[] }): Promise<TargetRun> {
  const { holder, readers, close: closeHolder } = await holderAndReaders(urls);
  const waiterClients = await openClients(urls);
  const waiting = new Redlock(waiterClients, { retryCount: 1, retryDelay: 20_000 });
  return {
    async sample() {
      const name = `bench:permits:${randomUUID()}`;
      const semaphore = holder.semaphore(name, 2);
      const [first, second] = [await semaphore.acquire(10_000), await semaphore.acquire(10_000)];
      const pending = waiting.semaphore(name, 2).acquire(10_000);
      await until("the waiter's listing", () => listedWithWake(readers, queueKey(name)));
      const releasedAt = performance.now();
      await second!.release();
      const permit = await pending;
      const handedOverMs = performance.now() - releasedAt;
      await Promise.all([first!.release(), permit.release()]);
      return handedOverMs;
    },
    async close() {
      await waiting.quit().catch(() => undefined);
      closeClients(waiterClients);
      await closeHolder();
    },
  };
}

/** The faults tests' node timeout (test/redlock/faults.test.ts). */
const HUNG_NODE_TIMEOUT_MS = 150;
/** How long a hung node stays hung: past every attempt of a sample. */
const HUNG_FOR_MS = 1_500;

/**
 * One acquire with `hung` of the five masters paused (CLIENT PAUSE ALL): a fresh instance on fresh
 * clients per sample (a node seen overdue in one sample is not skipped in the next), warmed by one
 * acquire while every node answers; the sample ends once the pause is over.
 */
function hungNodesRun(hung: number, settings: ConstructorParameters<typeof Redlock>[1]) {
  return async ({ urls }: { urls: readonly string[] }): Promise<TargetRun> => {
    const admins = await openClients(urls);
    return {
      async sample() {
        const clients = await openClients(urls);
        const redlock = new Redlock(clients, { ...settings, session: false });
        const warm = await redlock.acquire([`bench:hung-warm:${randomUUID()}`], 2_000);
        await warm.release();
        const pausedAt = performance.now();
        await Promise.all(
          admins
            .slice(0, hung)
            .map((admin) => admin.call("CLIENT", "PAUSE", String(HUNG_FOR_MS), "ALL")),
        );
        const startedAt = performance.now();
        const lock = await redlock
          .acquire([`bench:hung:${randomUUID()}`], 2_000)
          .catch(() => undefined);
        const settledMs = performance.now() - startedAt;
        await sleep(HUNG_FOR_MS + 200 - (performance.now() - pausedAt));
        await lock?.release();
        closeClients(clients);
        return settledMs;
      },
      async close() {
        closeClients(admins);
      },
    };
  };
}

/**
 * From the end of a using() lock's TTL to its signal's abort, while its extension retries into
 * paused writes (CLIENT PAUSE WRITE on every master): test/redlock/using-late-extension.test.ts.
 * Negative when the abort comes first: the validity ends the drift (22 ms) before the TTL does.
 */
async function validityEndRun({ urls }: { urls: readonly string[] }): Promise<TargetRun> {
  const admins = await openClients(urls);
  const ttlMs = 2_000;
  return {
    async sample() {
      const clients = await openClients(urls);
      const redlock = new Redlock(clients, {
        retryCount: 5,
        retryDelay: 1_000,
        retryJitter: 0,
        automaticExtensionThreshold: 500,
        nodeTimeout: 100,
        session: false,
      });
      const startedAt = Date.now();
      let abortedAtMs = 0;
      try {
        await redlock.using([`bench:validity:${randomUUID()}`], ttlMs, async (signal) => {
          await Promise.all(admins.map((admin) => admin.call("CLIENT", "PAUSE", "4000", "WRITE")));
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          abortedAtMs = Date.now();
        });
      } finally {
        await Promise.all(admins.map((admin) => admin.call("CLIENT", "UNPAUSE")));
      }
      // Closing the clients ends the extension still retrying when the routine settled.
      closeClients(clients);
      return abortedAtMs - (startedAt + ttlMs);
    },
    async close() {
      closeClients(admins);
    },
  };
}

const SAFE_UNLOCK = "test/redlock/safe-unlock.test.ts";
const HEAR = "test/redlock/hear-every-path.test.ts";

export const LIBRARY_TARGETS: readonly LatencyTarget[] = [
  {
    name: "a force-released using() routine's signal aborts after the notice",
    test: `${SAFE_UNLOCK} › a force-released using() routine's signal aborts on the notice, before any extension, …; ${HEAR} › the notice tests`,
    targetMs: 100,
    runs: 100,
    setup: noticeRun("force-release", 1),
  },
  {
    name: "a revoked using() routine's signal aborts after the notice",
    test: `${SAFE_UNLOCK} › revoke: the holder's signal aborts, its pending acquires are cancelled, …`,
    targetMs: 100,
    runs: 100,
    setup: noticeRun("revoke", 1),
  },
  {
    name: "a session release of 6 locks aborts every routine after its notice",
    test: `${HEAR} › a session release of 6 locks (one audit id, one notice per lock) aborts every routine on its notice, before any extension`,
    targetMs: 500,
    runs: 40,
    setup: noticeRun("force-release", 6),
  },
  {
    name: "a released lock's waiting contender acquires it (handoff)",
    test: "test/redlock/handoff.test.ts › wakes the waiting contender on the release, well before its retryDelay",
    targetMs: 100,
    runs: 50,
    setup: handoffRun,
  },
  {
    name: "a freed semaphore permit reaches its waiter (handoff)",
    test: "test/redlock/semaphore.test.ts › hands a freed permit to the waiter on its release, not at its retry, whichever permit it was",
    targetMs: 100,
    runs: 50,
    setup: permitHandoffRun,
  },
  {
    name: "an acquire with 2 of 5 nodes hung returns within one nodeTimeout",
    test: "test/redlock/faults.test.ts › acquires with 2 of 5 nodes paused, never waiting for them past their nodeTimeout",
    targetMs: HUNG_NODE_TIMEOUT_MS + 100,
    runs: 30,
    setup: hungNodesRun(2, { nodeTimeout: HUNG_NODE_TIMEOUT_MS, retryCount: 0 }),
  },
  {
    name: "an acquire with 3 of 5 nodes hung fails within one nodeTimeout plus its retries",
    test: "test/redlock/faults.test.ts › fails with 3 of 5 paused, its retries skipping the overdue nodes unsent, …",
    // One node timeout, three retry waits of 20 ± 5 ms, and 150 ms of slack.
    targetMs: HUNG_NODE_TIMEOUT_MS + 4 * 20 + 150,
    runs: 30,
    setup: hungNodesRun(3, {
      nodeTimeout: HUNG_NODE_TIMEOUT_MS,
      retryCount: 3,
      retryDelay: 20,
      retryJitter: 5,
    }),
  },
  {
    name: "using() aborts at its validity's end while an extension still retries",
    test: "test/redlock/using-late-extension.test.ts › aborts the routine's signal when the validity ends, while an extension still retries",
    targetMs: 150,
    runs: 20,
    setup: validityEndRun,
  },
];
