/**
 * Overlaps are never silent (issue 39, item 5), end to end on the five shared masters: the real
 * library holds a lock under using(), the console force-releases it through its route (it writes
 * the tombstone, `PX` = the value's short validity plus drift), and another Redlock waits for the
 * lock. A routine that keeps working after its signal aborted (a long step) never lets its library
 * acknowledge: the tombstone runs out by its TTL, the contender acquires while the old routine still
 * runs, and that acquisition carries `possibleOverlap` (reason "reservation-unacknowledged"), says
 * so in its summary, is listed under `?problems=1` and is counted by
 * `redlock_console_possible_overlaps_total`. A routine that stops on its signal lets its library
 * delete its tombstone (the acknowledgement): the next acquisition carries nothing.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as events from "@/app/api/events/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as metrics from "@/app/api/metrics/route";
import type { EventsResponse, ForceReleaseResponse, Transition } from "@/lib/api";
import Redlock, { LockForceReleasedError, type RedlockAbortSignal } from "@redlock-console/redlock";
import { sleep } from "../masters";
import { untilSubscribedEverywhere } from "../redlock/fixtures/console-marks";
import { useLockNodes } from "../redlock/fixtures/lock-nodes";
import { call, consoleUrlsOf, startTestConsole, type TestConsole } from "./helpers";

/** The holder's TTL: its tombstone lasts about as long (the value's PTTL plus drift). */
const HOLDER_TTL_MS = 3_000;
/** How long a routine that stops on its signal takes to wind down. */
const WIND_DOWN_MS = 300;

const nodes = useLockNodes("single");
let tc: TestConsole;
const instances: Redlock[] = [];

beforeAll(async () => {
  tc = startTestConsole(consoleUrlsOf(nodes().specs));
  // History starts once the index is whole (the first tick after the listing).
  await tc.historyWhole();
});
afterAll(() => tc?.close());
afterEach(async () => {
  await Promise.all(instances.splice(0).map((redlock) => redlock.quit().catch(() => undefined)));
});

async function instance(service: string): Promise<Redlock> {
  const redlock = new Redlock(await nodes().clients("ioredis"), {
    retryCount: 0,
    owner: { service },
  });
  instances.push(redlock);
  return redlock;
}

/** Runs `routine` under using(); resolves once held and its notice channel is subscribed everywhere. */
async function hold(resource: string, routine: (signal: RedlockAbortSignal) => Promise<void>) {
  const holder = await instance("billing-worker");
  let onHeld = (_signal: RedlockAbortSignal) => undefined as void;
  const held = new Promise<RedlockAbortSignal>((resolve) => (onHeld = resolve));
  const running = holder.using([resource], HOLDER_TTL_MS, async (signal) => {
    onHeld(signal);
    await routine(signal);
  });
  running.catch(() => undefined);
  const signal = await held;
  await untilSubscribedEverywhere(nodes().servers, holder.session!.id);
  const reads = await Promise.all(nodes().readers.map((reader) => reader.get(resource)));
  const value = reads.find((found) => found !== null)!;
  // The console saw the holder before the force-release (else the tombstone names no owner).
  await acquisitionOf(resource, value);
  return { running, signal, value };
}

async function transitionsOf(resource: string, problems = false): Promise<Transition[]> {
  const query = `resource=${encodeURIComponent(resource)}&limit=100${problems ? "&problems=1" : ""}`;
  const response = await call<EventsResponse>(events.GET, `/api/events?${query}`);
  expect(response.status).toBe(200);
  return response.body.transitions.filter((transition) => transition.kind !== "gap").reverse();
}

/** The acquisition of `value` once the console has folded it (and the reservation's end before it). */
async function acquisitionOf(resource: string, value: string): Promise<Transition> {
  let found: Transition | undefined;
  await vi.waitFor(
    async () => {
      found = (await transitionsOf(resource)).find(
        (transition) => transition.kind === "acquired" && transition.value === value,
      );
      expect(found).toBeDefined();
    },
    { timeout: 10_000, interval: 50 },
  );
  return found!;
}

async function overlapsCounted(reason: string): Promise<number> {
  const scrape = await call(metrics.GET, "/api/metrics");
  const line = new RegExp(
    `^redlock_console_possible_overlaps_total\\{reason="${reason}"\\} (\\d+)$`,
    "m",
  );
  return Number(line.exec(scrape.text)?.[1] ?? 0);
}

/** Force-releases the holder through the console, then a contender waits for the lock. */
async function forceReleaseThenContend(resource: string, value: string) {
  const forced = await call<ForceReleaseResponse>(forceRelease.POST, "/api/locks/force-release", {
    body: { resource, expectedValue: value, reason: "stuck job, paged" },
  });
  expect(forced.body).toMatchObject({ mode: "tombstoned", holderState: "alive" });
  const contender = await instance("contender");
  const lock = await contender.acquire([resource], 10_000, {
    retryCount: -1,
    retryDelay: 20,
    retryJitter: 0,
    signal: AbortSignal.timeout(15_000),
  });
  return { lock, acquiredAt: Date.now() };
}

describe("the acquisition after a force-release", () => {
  it("after a tombstone its holder acknowledged (the routine stopped on its signal): no flag, nothing counted", async () => {
    const resource = `${tc.prefix}overlap-acked:${randomUUID()}`;
    // It winds down for WIND_DOWN_MS after its signal aborted, then settles: its library deletes
    // its tombstone (the acknowledgement) well within the tombstone's TTL.
    const { running, value } = await hold(resource, async (signal) => {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
      await sleep(WIND_DOWN_MS);
    });
    const { lock } = await forceReleaseThenContend(resource, value);
    await running.catch(() => undefined);
    const taken = await acquisitionOf(resource, lock.value);
    const kinds = (await transitionsOf(resource)).map((transition) => transition.kind);
    expect(kinds).toContain("release-acknowledged");
    expect(taken).toMatchObject({ possibleOverlap: null, afterExpired: null, summary: null });
    expect(await transitionsOf(resource, true)).toEqual([]);
    expect(await overlapsCounted("reservation-unacknowledged")).toBe(0);
    await lock.release();
  });

  it("after a tombstone that ran out while the old routine ran on (a long step): possibleOverlap, under Problems, counted once", async () => {
    const resource = `${tc.prefix}overlap-unacked:${randomUUID()}`;
    let stepEndedAt: number | null = null;
    let endStep = () => {};
    const stepMayEnd = new Promise<void>((resolve) => (endStep = resolve));
    const { running, signal, value } = await hold(resource, async () => {
      await stepMayEnd; // ignores its signal: goes on until the next holder holds the lock
      stepEndedAt = Date.now();
    });
    const { lock, acquiredAt } = await forceReleaseThenContend(resource, value);
    // The contender got the lock while the old routine was still working: a real overlap.
    expect(stepEndedAt).toBeNull();
    expect(signal.error).toBeInstanceOf(LockForceReleasedError);
    // The routine settles now, and its library acknowledges late: it deletes what is left of its
    // tombstone on the nodes where it had not run out yet (a minority). That proves nothing about
    // the time before the contender acquired, and must not hide the overlap.
    endStep();
    await running.catch(() => undefined);
    const taken = await acquisitionOf(resource, lock.value);
    expect(taken.possibleOverlap).toMatchObject({
      reason: "reservation-unacknowledged",
      previousValue: expect.stringMatching(/^rlx:[0-9a-f]{40}:/),
      previousOwner: { labels: { service: "billing-worker" } },
      by: "break-glass (token)",
    });
    expect(taken.possibleOverlap!.since).toBeLessThanOrEqual(acquiredAt + 50);
    expect(taken.afterExpired).toBeNull();
    expect(taken.summary).toMatch(
      /^acquired while the previous holder never confirmed it stopped \(force-released by break-glass \(token\), reservation ran out at \d\d:\d\d:\d\d UTC\): both may have acted as holders$/,
    );
    const kinds = (await transitionsOf(resource))
      .map((transition) => transition.kind)
      .filter((kind) => kind !== "extended");
    expect(kinds).toEqual([
      "acquired",
      "force-released",
      "releasing",
      "reservation-ended",
      "acquired",
    ]);
    const problems = await transitionsOf(resource, true);
    expect(problems.map((transition) => transition.id)).toEqual([taken.id]);
    expect(await overlapsCounted("reservation-unacknowledged")).toBe(1);
    // An anonymous reader sees the previous value as a digest, like every value.
    const anonymous = await call<EventsResponse>(
      events.GET,
      `/api/events?resource=${encodeURIComponent(resource)}&problems=1`,
      { token: null },
    );
    expect(anonymous.body.transitions[0]!.possibleOverlap!.previousValue).toMatch(
      /^sha1:[0-9a-f]{12}$/,
    );
    expect((await call(events.GET, "/api/events?problems=yes")).status).toBe(400);
    await lock.release();
  });
});
