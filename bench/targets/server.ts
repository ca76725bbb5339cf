/**
 * The console's latencies that test/server used to assert as bounds (issue 48). Each target runs
 * the test's scenario on the bench's masters; the test keeps the order or state that holds at any
 * speed and names no figure.
 *
 * Holder session states (test/server/session-states.test.ts): a holder in a process of its own
 * (test/redlock/fixtures/session-holder.ts, heartbeat every 100 ms: late after 300 ms) and a
 * console on the same masters reading `GET /api/locks/{resource}`'s `holderSession.state` back to
 * back. A sample is the time from the act (kill(), the holder's "idle") to the start of the first
 * read that says the new state: every read begun later says it too, which is what the console
 * promises within LATE_AFTER + 50 ms (a signal's delivery and a heartbeat in flight).
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { register } from "node:module";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import type { HolderSessionState } from "@/lib/api";
import { lateAfterMs, sessionWindowMs } from "@redlock-console/redlock";
import { forkHolder } from "../../test/redlock/fixtures/fork-holder";
import type { HolderMessage } from "../../test/redlock/fixtures/session-holder";
import type { LatencyTarget, TargetContext, TargetRun } from "./target";

register("../server-only-hooks.mjs", import.meta.url);

const HEARTBEAT_MS = 100;
/** The promise: LATE_AFTER of a 100 ms heartbeat, plus a signal's delivery and a heartbeat in flight. */
const SESSION_STATE_TARGET_MS = lateAfterMs(HEARTBEAT_MS) + 50;
const SESSION_STATES_TEST = "test/server/session-states.test.ts";
/** A scenario that waits longer than this for a state is broken, not slow. */
const STATE_DEADLINE_MS = 20_000;
/** The holder's busy event loop in the busy targets (the test's is 3 s; 1 s shows the same). */
const BUSY_MS = 1_000;
/** Longer than all of a target's samples (20 × ~2.5 s), so no extension falls inside one. */
const HOLDER_TTL_MS = 120_000;
/** Alive this long (ten heartbeats) before each act: no sample starts from the previous one's state. */
const SETTLE_MS = 1_000;

type ConsoleContext = ReturnType<(typeof import("@/lib/server/console"))["createConsole"]>;

/** A console on the bench's masters that lists only this run's keys. */
async function startConsole(
  urls: readonly string[],
): Promise<{ ctx: ConsoleContext; prefix: string }> {
  const { createConsole } = await import("@/lib/server/console");
  const { configFor } = await import("@/lib/server/config");
  const prefix = `bench-${randomBytes(4).toString("hex")}:`;
  const ctx = createConsole(
    configFor([...urls], {
      adminToken: randomBytes(16).toString("hex"),
      probeIntervalMs: 0,
      snapshotMaxAgeMs: 0,
      lockMatch: [`${prefix}*`],
      logLevel: "silent",
      readLimitPerS: 10_000,
    }),
  );
  await ctx.index.sync();
  return { ctx, prefix };
}

/** Until every master has been up longer than the session window, so that each may prove "gone". */
async function untilUpLongerThanTheWindow(urls: readonly string[]): Promise<void> {
  const uptimesS = await Promise.all(
    urls.map(async (url) => {
      const client = new Redis(url, { lazyConnect: false });
      try {
        return Number(/^uptime_in_seconds:(\d+)/m.exec(await client.info("server"))![1]);
      } finally {
        client.disconnect();
      }
    }),
  );
  const neededS = Math.floor(sessionWindowMs(HEARTBEAT_MS) / 1000) + 1;
  await sleep(Math.max(0, neededS - Math.min(...uptimesS)) * 1000 + 50);
}

/**
 * A holder of `resource` in a process of its own, its heartbeat every 100 ms. Its lock lasts
 * HOLDER_TTL_MS: with the fixture's 10 s, a busy sample landing on the extension (9.5 s on)
 * delayed it past the validity, the lock was lost, and no read said "alive" again.
 */
async function spawnHolder(urls: readonly string[], resource: string): Promise<ChildProcess> {
  const specs = urls.map((url) => ({ url }));
  const { child } = await forkHolder(
    { kind: "ioredis", specs, resource, heartbeatMs: HEARTBEAT_MS, ttlMs: HOLDER_TTL_MS },
    () => undefined,
  );
  return child;
}

/**
 * Reads the holder's state back to back until a read says `state`; returns when that read began
 * (performance.now()).
 */
async function firstReadSaying(
  ctx: ConsoleContext,
  resource: string,
  state: HolderSessionState,
): Promise<number> {
  const deadline = performance.now() + STATE_DEADLINE_MS;
  while (performance.now() < deadline) {
    const startedAt = performance.now();
    const lock = await ctx.readLock(Buffer.from(resource));
    if (lock.holderSession?.state === state) return startedAt;
  }
  throw new Error(`no read said "${state}" in ${STATE_DEADLINE_MS} ms`);
}

function idleMessage(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: HolderMessage) => {
      if (message.type !== "idle") return;
      child.off("message", onMessage);
      resolve(performance.now());
    };
    child.on("message", onMessage);
  });
}

/**
 * One holder and one console for every sample; `sample` acts on the holder and returns how long
 * after its act the console said the new state.
 */
function holderTarget(
  name: string,
  test: string,
  act: (ctx: ConsoleContext, resource: string, child: ChildProcess) => Promise<number>,
): LatencyTarget {
  return {
    name,
    test: `${SESSION_STATES_TEST} › ${test}`,
    targetMs: SESSION_STATE_TARGET_MS,
    percentile: 99,
    // A sample takes a settling second and its act (a busy one its 1 s loop): 20 keep it short.
    runs: 20,
    async setup({ urls }: TargetContext): Promise<TargetRun> {
      const { ctx, prefix } = await startConsole(urls);
      const resource = `${prefix}holder:${randomUUID()}`;
      const child = await spawnHolder(urls, resource);
      await firstReadSaying(ctx, resource, "alive");
      return {
        async sample() {
          await firstReadSaying(ctx, resource, "alive");
          await sleep(SETTLE_MS);
          return act(ctx, resource, child);
        },
        close: async () => {
          child.kill("SIGKILL");
          await ctx.close();
        },
      };
    },
  };
}

const STOPPED_TEST =
  "alive; SIGSTOP: unresponsive, and from then on until SIGCONT, never gone; SIGCONT: alive again";
const BUSY_TEST =
  "a 3 s busy event loop: unresponsive while it lasts, never gone; alive again after";

export const SERVER_TARGETS: readonly LatencyTarget[] = [
  holderTarget(
    "session state: a SIGSTOPped holder reads unresponsive",
    STOPPED_TEST,
    async (ctx, resource, child) => {
      const stoppedAt = performance.now();
      child.kill("SIGSTOP");
      try {
        return (await firstReadSaying(ctx, resource, "unresponsive")) - stoppedAt;
      } finally {
        child.kill("SIGCONT");
        await firstReadSaying(ctx, resource, "alive");
      }
    },
  ),
  holderTarget(
    "session state: a SIGCONTed holder reads alive again",
    STOPPED_TEST,
    async (ctx, resource, child) => {
      child.kill("SIGSTOP");
      try {
        await firstReadSaying(ctx, resource, "unresponsive");
      } finally {
        child.kill("SIGCONT");
      }
      const resumedAt = performance.now();
      return (await firstReadSaying(ctx, resource, "alive")) - resumedAt;
    },
  ),
  holderTarget(
    "session state: a holder busy in its event loop reads unresponsive",
    BUSY_TEST,
    async (ctx, resource, child) => {
      const idle = idleMessage(child);
      const sentAt = performance.now();
      child.send({ busyMs: BUSY_MS });
      const saidAt = await firstReadSaying(ctx, resource, "unresponsive");
      await idle;
      await firstReadSaying(ctx, resource, "alive");
      return saidAt - sentAt;
    },
  ),
  holderTarget(
    "session state: a holder idle again reads alive",
    BUSY_TEST,
    async (ctx, resource, child) => {
      const idle = idleMessage(child);
      child.send({ busyMs: BUSY_MS });
      const idleAt = await idle;
      return (await firstReadSaying(ctx, resource, "alive")) - idleAt;
    },
  ),
  {
    name: "session state: a SIGKILLed holder reads gone",
    test: `${SESSION_STATES_TEST} › SIGKILL: gone, and from then on; a force-release then tombstones the lock (a contender is refused), and only the explicit delete-now lets a contender acquire without waiting`,
    targetMs: SESSION_STATE_TARGET_MS,
    percentile: 90,
    // A holder per sample: a fork under tsx takes a second or two.
    runs: 15,
    async setup({ urls }: TargetContext): Promise<TargetRun> {
      await untilUpLongerThanTheWindow(urls);
      const { ctx, prefix } = await startConsole(urls);
      return {
        async sample() {
          const resource = `${prefix}killed:${randomUUID()}`;
          const child = await spawnHolder(urls, resource);
          await firstReadSaying(ctx, resource, "alive");
          await sleep(SETTLE_MS);
          const killedAt = performance.now();
          child.kill("SIGKILL");
          return (await firstReadSaying(ctx, resource, "gone")) - killedAt;
        },
        close: () => ctx.close(),
      };
    },
  },
];
