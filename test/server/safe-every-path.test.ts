// test-group: timed
/**
 * Issue 39, "Must show": the console's force-release never makes two holders, on the paths where
 * "gone" was a guess (a closed connection plus a late heartbeat) and on `force: true`. Black box, on
 * five private masters up longer than the session window (so that a node may prove "gone"):
 * - the holder is this library's Redlock with a session (heartbeat every 100 ms: late after 300 ms)
 *   in a process of its own (fixtures/overlap-holder.ts), working as a service does: until its
 *   signal aborts, or, shutting down gracefully, until its in-flight work is done;
 * - the operator force-releases through the console's route handler, by the value the nodes show,
 *   FORCE_AFTER_MS after the fault (today's console reads "gone" by then);
 * - a contender (another Redlock, in the test process) retries every 10 ms from the moment the
 *   holder is settled in (its value and heartbeat on all five nodes), and works from its
 *   acquisition until the holder's work is over (or the deadline).
 * An independent journal, each side's own Date.now() readings (one wall clock for every process on
 * the machine), gives the overlap of the two works: it must be zero. The holder's abort, its work's
 * end and the contender's acquisition are printed at the end, from the console's answer.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as forceReleaseRoute from "@/app/api/locks/force-release/route";
import type { ErrorBody, ForceReleaseResponse } from "@/lib/api";
import Redlock, {
  acquiredAtOfValue,
  defaultSettings,
  driftMs,
  sessionKey,
} from "@redlock-console/redlock";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { forkOverlapHolder, type OverlapHolder } from "./fixtures/fork-overlap-holder";
import type { OverlapHolderArgs } from "./fixtures/overlap-holder";
import { startTcpProxy, type TcpProxy } from "./fixtures/tcp-proxy";
import { call, startTestConsole, type TestConsole } from "./helpers";

const HEARTBEAT_MS = 100;
/** 60 heartbeats: a node proves "gone" only once up longer than this. */
const WINDOW_MS = 60 * HEARTBEAT_MS;
/** Three heartbeats: a heartbeat older than this is late. */
const LATE_MS = 3 * HEARTBEAT_MS;
const TTL_MS = 6_000;
/** The proxied holder's: its first extension (at 9.5 s) comes after the 8 s outage, as in the issue. */
const PROXIED_TTL_MS = 10_000;
const OUTAGE_MS = 8_000;
/** A TTL the outage outlasts: the holder's extension (at 1.5 s) fails while the proxies are down. */
const SHORT_TTL_MS = 2_000;
/** Before that extension, past LATE_AFTER (300 ms). */
const SHORT_FORCE_AFTER_MS = 700;
/** From the fault to the operator's click: past LATE_AFTER (300 ms) with room to spare. */
const FORCE_AFTER_MS = 1_500;
/** The graceful holder's work after quit(): well inside its lock's validity. */
const IN_FLIGHT_MS = 3_000;
/** The paused holder is resumed this long after the console's answer. */
const RESUME_AFTER_MS = 1_000;
/** Past the replaced value's validity (plus drift), by when both journals must be complete. */
const SLACK_MS = 3_000;

/** [start, end] of one side's critical-section work, on its own clock (epoch ms). */
interface Work {
  readonly startedAt: number;
  readonly endedAt: number;
}

/** The library's drift for a TTL (default driftFactor 0.01, plus 2 ms): validity = TTL − drift. */
/** The library's drift at its default factor (protocol.ts driftMs). */
const driftOf = (ttlMs: number) => driftMs(ttlMs, defaultSettings.driftFactor);

const overlapMs = (a: Work, b: Work) =>
  Math.max(0, Math.min(a.endedAt, b.endedAt) - Math.max(a.startedAt, b.startedAt));

/** Per scenario, for the summary: from the console's answer, ms. */
const figures: Array<Record<string, string | number | null>> = [];

afterAll(() => {
  for (const row of figures)
    console.info(
      Object.entries(row)
        .map(([key, value]) => `${key}=${value}`)
        .join(" "),
    );
});

describe("force-release on every path: the holder's work and the next holder's never overlap (issue 39)", () => {
  const { masters } = usePrivateMasters(5);
  let tc: TestConsole;
  let readers: Redis[];
  let contender: Redlock;
  beforeAll(async () => {
    readers = connect(masters().urls);
    tc = startTestConsole(masters().urls);
    await tc.ready();
    contender = new Redlock(connect(masters().urls));
    await sleep(WINDOW_MS + 1_100); // the masters' uptime past the window (whole seconds)
  }, 30_000);
  afterAll(async () => {
    await contender?.quit();
    await tc?.close();
    await disconnect(readers ?? []);
  });

  const children: ChildProcess[] = [];
  const proxies: TcpProxy[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
  });

  const resourceNamed = (name: string) => `${tc.prefix}${name}:${randomUUID()}`;

  function holder(
    mode: OverlapHolderArgs["mode"],
    resource: string,
    extra: Partial<OverlapHolderArgs> = {},
  ): OverlapHolder & { readonly connectionName: string } {
    const args: OverlapHolderArgs = {
      mode,
      urls: masters().urls,
      connectionName: `overlap-${mode}-${randomUUID().slice(0, 8)}`,
      resource,
      ttlMs: TTL_MS,
      heartbeatMs: HEARTBEAT_MS,
      ...extra,
    };
    const forked = forkOverlapHolder(args, (child) => children.push(child));
    return { ...forked, connectionName: args.connectionName };
  }

  /**
   * The value the lock page shows, once the holder is settled in: the value on all five nodes (a
   * slow node's vote may come after the quorum's, and the contender, started next, must not take
   * that node first) and, given `sessionId`, that session's heartbeat fresh on all five, as a
   * process that has run a while has it (a key never written proves nothing of a connection).
   */
  async function settledValueOf(resource: string, sessionId: string | null): Promise<string> {
    return vi.waitFor(async () => {
      const values = await Promise.all(readers.map((reader) => reader.get(resource)));
      expect(new Set(values).size, values.join(", ")).toBe(1);
      expect(values[0]).not.toBeNull();
      if (sessionId === null) return values[0]!;
      const pttls = await Promise.all(readers.map((reader) => reader.pttl(sessionKey(sessionId))));
      expect(Math.min(...pttls), pttls.join(", ")).toBeGreaterThan(WINDOW_MS - LATE_MS);
      return values[0]!;
    });
  }

  /** CLIENT KILL of every connection named `name` on every node, as an idle reaper does. */
  async function killConnections(name: string): Promise<number> {
    const killed = await Promise.all(
      readers.map(async (reader) => {
        const lines = String(await reader.client("LIST")).split("\n");
        const ids = lines
          .filter((line) => line.includes(` name=${name} `))
          .map((line) => /^id=(\d+)/.exec(line)![1]!);
        for (const id of ids) await reader.client("KILL", "ID", id);
        return ids.length;
      }),
    );
    return killed.reduce((sum, count) => sum + count, 0);
  }

  async function forceRelease(body: Record<string, unknown>) {
    const response = await call<ForceReleaseResponse & ErrorBody>(
      forceReleaseRoute.POST,
      "/api/locks/force-release",
      { body: { reason: "on-call: stuck job", ...body } },
    );
    const answeredAt = Date.now();
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return { ...response.body, answeredAt };
  }

  /** Acquires `resource` retrying every 10 ms; works from its acquisition until stop(). */
  function contend(resource: string) {
    const stopping = new AbortController();
    let onAcquired = (_at: number) => undefined as void;
    const acquired = new Promise<number>((resolve) => (onAcquired = resolve));
    let work: Work | undefined;
    const running = contender
      .using(
        [resource],
        TTL_MS,
        {
          retryCount: -1,
          retryDelay: 10,
          retryJitter: 0,
          signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(60_000)]),
        },
        async (signal) => {
          const startedAt = Date.now();
          onAcquired(startedAt);
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          work = { startedAt, endedAt: Date.now() };
        },
      )
      .catch(() => undefined);
    return {
      acquired,
      stop: async () => {
        stopping.abort();
        await running;
        return work;
      },
    };
  }

  /**
   * Waits until the holder's work ended and the contender acquired (or `deadlineAt`: a holder
   * still working then is counted as working until then), stops the contender, records the
   * figures and returns the overlap of the two journals.
   */
  async function settle(
    scenario: string,
    forced: Awaited<ReturnType<typeof forceRelease>>,
    working: OverlapHolder,
    contending: ReturnType<typeof contend>,
    deadlineAt: number,
  ) {
    const deadline = sleep(deadlineAt - Date.now()).then(() => undefined);
    let aborted: { at: number; error: { name: string } } | undefined;
    void working.aborted.then((message) => (aborted = message));
    const held = await working.held;
    const ended = await Promise.race([working.ended, deadline]);
    await Promise.race([contending.acquired, deadline]);
    const contenderWork = await contending.stop();
    const holderWork: Work = { startedAt: held.at, endedAt: ended?.at ?? Date.now() };
    const overlap = contenderWork ? overlapMs(holderWork, contenderWork) : 0;
    const from = (at: number | undefined) => (at === undefined ? null : at - forced.answeredAt);
    figures.push({
      scenario,
      holderState: forced.holderState,
      mode: forced.mode,
      overlapMs: overlap,
      holderHeldMs: from(held.at),
      holderAbortMs: from(aborted?.at),
      abortError: aborted?.error.name ?? null,
      holderWorkEndMs: ended ? from(ended.at) : `still working at ${from(holderWork.endedAt)}`,
      contenderAcquiredMs: from(contenderWork?.startedAt),
      // The answer's reservedUntil, where the console says it (issue 39's answers).
      reservedUntilMs: from(
        (forced as { reservedUntil?: number | null }).reservedUntil ?? undefined,
      ),
    });
    const journal =
      `holder worked [${from(holderWork.startedAt)}, ${from(holderWork.endedAt)}] ms, contender ` +
      `[${from(contenderWork?.startedAt)}, ${from(contenderWork?.endedAt)}] ms from the console's ` +
      `answer (${forced.mode}, holder ${forced.holderState})`;
    return { overlap, journal, ended, aborted, contenderWork };
  }

  /**
   * A using() holder whose connections to masters 0–2 go through proxies, down OUTAGE_MS from just
   * after it holds; the operator force-releases by value `forceAfterMs` into the outage.
   */
  async function behindProxies(scenario: string, ttlMs: number, forceAfterMs: number) {
    const started = masters()
      .masters.slice(0, 3)
      .map((master) => startTcpProxy(master.port));
    proxies.push(...(await Promise.all(started)));
    const resource = resourceNamed(scenario);
    const urls = [...proxies.map((proxy) => proxy.url), ...masters().urls.slice(3)];
    const working = holder("using", resource, { urls, ttlMs });
    const { sessionId } = await working.held;
    const value = await settledValueOf(resource, sessionId);
    const contending = contend(resource);
    await Promise.all(proxies.map((proxy) => proxy.stop()));
    const outageAt = Date.now();
    const restarted = sleep(OUTAGE_MS).then(() => Promise.all(proxies.map((p) => p.start())));
    await sleep(forceAfterMs);
    const forced = await forceRelease({ resource, expectedValue: value });
    const deadlineAt = outageAt + Math.max(ttlMs, OUTAGE_MS) + SLACK_MS;
    const outcome = await settle(scenario, forced, working, contending, deadlineAt);
    await restarted;
    // Never extended (its first extension came in or after the outage, and failed): where its
    // signal's abort fell against the validity it acquired.
    const validityEndsAt = acquiredAtOfValue(value)! + ttlMs - driftOf(ttlMs);
    const abortAfterValidityEndMs = outcome.aborted ? outcome.aborted.at - validityEndsAt : null;
    figures.at(-1)!.abortAfterValidityEndMs = abortAfterValidityEndMs;
    return { ...outcome, abortAfterValidityEndMs };
  }

  it("a holder behind L4 proxies to 3 of 5 masters, the proxies down 8 s while the process runs on: force-release by value during the outage makes no second holder", async () => {
    const outcome = await behindProxies("proxies-down", PROXIED_TTL_MS, FORCE_AFTER_MS);
    expect(outcome.overlap, outcome.journal).toBe(0);
    expect(outcome.abortAfterValidityEndMs).toBeLessThanOrEqual(0);
  }, 30_000);

  it("the same with a TTL shorter than the outage (its extension fails while the proxies are down): no second holder", async () => {
    const outcome = await behindProxies(
      "proxies-down-short-ttl",
      SHORT_TTL_MS,
      SHORT_FORCE_AFTER_MS,
    );
    expect(outcome.overlap, outcome.journal).toBe(0);
    // What zero overlap rests on, whatever the contender's timing: the tombstone lasts until the
    // replaced key's TTL plus drift, i.e. two drifts past the validity's end, and the library aborts
    // the signal when the validity ends (a timer: it fires at that ms or just after), so the abort
    // must come before the reservation ends. It came 100-240 ms after it before using() watched
    // the validity itself.
    expect(
      outcome.abortAfterValidityEndMs,
      "the holder's signal aborted this long after its lock's validity ended",
    ).toBeLessThanOrEqual(2 * driftOf(SHORT_TTL_MS));
  }, 30_000);

  it("a graceful shutdown, redlock.quit() first and then its in-flight work finished within its validity: force-release by value meanwhile makes no second holder", async () => {
    const resource = resourceNamed("graceful");
    const working = holder("graceful", resource, { inFlightMs: IN_FLIGHT_MS });
    const { sessionId } = await working.held;
    const value = await settledValueOf(resource, sessionId);
    const contending = contend(resource);
    working.send({ op: "shutdown" });
    const shutdownAt = Date.now();
    await sleep(FORCE_AFTER_MS);
    const forced = await forceRelease({ resource, expectedValue: value });
    const outcome = await settle(
      "graceful",
      forced,
      working,
      contending,
      shutdownAt + TTL_MS + SLACK_MS,
    );
    expect(outcome.overlap, outcome.journal).toBe(0);
    // The premise: the work ended inside the validity it acquired (it was never extended).
    expect(outcome.ended!.at).toBeLessThan(acquiredAtOfValue(value)! + TTL_MS - driftOf(TTL_MS));
  });

  it("a lock handed to another process (lockByValue; the acquirer exits): force-release by value makes no second holder, and the new holder's extension fails naming the force-release", async () => {
    const resource = resourceNamed("handed");
    const acquirer = holder("acquire-and-exit", resource);
    const { value, sessionId: acquirerSession } = await acquirer.held;
    await acquirer.exited;
    const exitedAt = Date.now();
    // It ran a while: its heartbeat stands on every node (its connections closed with it).
    const beats = await Promise.all(
      readers.map((reader) => reader.pttl(sessionKey(acquirerSession))),
    );
    expect(Math.min(...beats), beats.join(", ")).toBeGreaterThan(0);
    const working = holder("handed", resource, { value });
    await working.held;
    // Its own session never starts (it acquires nothing): the value names the acquirer's.
    expect(await settledValueOf(resource, null)).toBe(value);
    const contending = contend(resource);
    await sleep(Math.max(0, exitedAt + FORCE_AFTER_MS - Date.now()));
    const forced = await forceRelease({ resource, expectedValue: value });
    const outcome = await settle(
      "handed",
      forced,
      working,
      contending,
      Date.now() + TTL_MS + SLACK_MS,
    );
    expect(outcome.overlap, outcome.journal).toBe(0);
    const error = outcome.ended?.error;
    expect(
      error?.name === "LockForceReleasedError" || /force-released/i.test(error?.message ?? ""),
      `the extension failed with ${error?.name}: ${error?.message}`,
    ).toBe(true);
  });

  it("a paused holder (SIGSTOP) whose connections an idle reaper CLIENT KILLs, resumed after the force-release: no second holder", async () => {
    const resource = resourceNamed("paused-killed");
    const working = holder("using", resource);
    const { sessionId } = await working.held;
    const value = await settledValueOf(resource, sessionId);
    const contending = contend(resource);
    working.child.kill("SIGSTOP");
    const stoppedAt = Date.now();
    let forced: Awaited<ReturnType<typeof forceRelease>>;
    try {
      await sleep(3 * HEARTBEAT_MS);
      expect(await killConnections(working.connectionName)).toBeGreaterThanOrEqual(5);
      await sleep(Math.max(0, stoppedAt + FORCE_AFTER_MS - Date.now()));
      forced = await forceRelease({ resource, expectedValue: value });
      await sleep(RESUME_AFTER_MS);
    } finally {
      working.child.kill("SIGCONT");
    }
    const outcome = await settle(
      "paused-killed",
      forced,
      working,
      contending,
      stoppedAt + TTL_MS + SLACK_MS,
    );
    expect(outcome.overlap, outcome.journal).toBe(0);
  });

  it("force: true on a live using() holder: no second holder, and the holder's signal aborts with LockForceReleasedError", async () => {
    const resource = resourceNamed("force-any");
    const working = holder("using", resource);
    await settledValueOf(resource, (await working.held).sessionId);
    const contending = contend(resource);
    const forced = await forceRelease({ resource, force: true });
    const outcome = await settle(
      "force-true",
      forced,
      working,
      contending,
      Date.now() + TTL_MS + SLACK_MS,
    );
    expect(outcome.overlap, outcome.journal).toBe(0);
    expect(outcome.aborted?.error.name).toBe("LockForceReleasedError");
  });
});
