// test-group: timed
/**
 * Wait times, top blockers and objectives, on real masters with real processes (fixtures/contender.ts):
 * what the console measures from the waiter entries alone matches what each contender measured
 * itself; the holder that kept others waiting longest leads the top blockers; an objective's burn
 * rate moves when waits exceed its threshold, on the page's API and in the metrics.
 * The masters' uptime is stubbed (node-uptime.ts) past the session window, so "gone" can be
 * proven without first waiting for the private masters to be up 13 s; the rest is real.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as contentionRoute from "@/app/api/contention/route";
import * as waitsRoute from "@/app/api/contention/waits/route";
import * as metricsRoute from "@/app/api/metrics/route";
import type { ContentionResponse, WaitsResponse } from "@/lib/api";
import { sleep, usePrivateMasters } from "../masters";
import { useContenders } from "./fixtures/fork-contender";
import { call, startTestConsole, type TestConsole } from "./helpers";

vi.mock("@/lib/server/sessions/node-uptime", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/server/sessions/node-uptime")>()),
  readUptimeS: async () => 3_600,
}));

const masters = usePrivateMasters(3);
let tc: TestConsole;
const contender = useContenders(() => masters.masters().urls);

const waits = async () => (await call<WaitsResponse>(waitsRoute.GET, "/api/contention/waits")).body;

beforeAll(async () => {
  tc = startTestConsole(masters.masters().urls, {
    enableKeyspaceEvents: true,
    waitObjectives: [
      { name: "orders", match: "*:orders:*", thresholdMs: 150, target: 0.9, windowDays: 30 },
    ],
  });
  await tc.ready();
  await tc.sync();
});

afterAll(async () => {
  await tc.close();
});

describe("wait times", () => {
  it("match what the contenders measured themselves, within 50 ms, for a wait that acquired and one that gave up", async () => {
    const [holder, patient, impatient] = await Promise.all([
      contender("holder"),
      contender("patient"),
      contender("impatient", 6),
    ]);
    const resource = `${tc.prefix}stock:1`;
    await holder.hold(resource);
    const acquiring = patient.wait(resource);
    const givingUp = impatient.wait(resource);
    const gaveUp = await givingUp; // 6 retries of ~50 ms
    await sleep(400);
    await holder.release(resource);
    const acquired = await acquiring;
    expect(gaveUp.type).toBe("gave-up");
    expect(acquired.type).toBe("acquired");
    const seen = () =>
      tc.ctx.contention.stats.waits(Date.now()).filter((w) => w.resource === resource);
    await expect.poll(() => seen().length, { timeout: 2_000 }).toBe(2);
    const bySession = new Map(seen().map((wait) => [wait.participant, wait]));
    for (const [forked, measured, outcome] of [
      [patient, acquired, "acquired"],
      [impatient, gaveUp, "gave-up"],
    ] as const) {
      const wait = bySession.get(forked.sessionId)!;
      expect(wait.outcome).toBe(outcome);
      expect(
        Math.abs(wait.durationMs - (measured.endedAt - measured.startedAt)),
      ).toBeLessThanOrEqual(50);
    }
    const report = await waits();
    expect(report.locks.find((lock) => lock.resource === resource)?.count).toBe(2);
    // The chart of this lock alone: its two waits, by service.
    const one = (
      await call<WaitsResponse>(
        waitsRoute.GET,
        `/api/contention/waits?resource=${encodeURIComponent(resource)}`,
      )
    ).body;
    expect(one.series.map((point) => [point.service, point.count]).sort()).toEqual([
      ["impatient", 1],
      ["patient", 1],
    ]);
    expect(report.services.map((service) => service.service).sort()).toEqual(
      expect.arrayContaining(["impatient", "patient"]),
    );
  });
});

describe("top blockers", () => {
  it("ranks a deliberately slow holder first, with its labels and the lock it held", async () => {
    const [slow, quick, a, b, c] = await Promise.all([
      contender("slow-batch"),
      contender("quick-api"),
      contender("waiter-a"),
      contender("waiter-b"),
      contender("waiter-c"),
    ]);
    const slowLock = `${tc.prefix}report:1`;
    const quickLock = `${tc.prefix}cart:1`;
    await slow.hold(slowLock);
    await quick.hold(quickLock);
    const waiting = [a.wait(slowLock, true), b.wait(slowLock, true), c.wait(quickLock, true)];
    // The holds are timed from when the console shows all three waiting: a forked waiter may start
    // its first attempt late on a loaded machine, and a wait starts at that attempt.
    await expect
      .poll(async () => {
        const graph = (await call<ContentionResponse>(contentionRoute.GET, "/api/contention")).body;
        return [a, b, c].every((waiter) => graph.participants[waiter.sessionId]?.waitsFor.length);
      })
      .toBe(true);
    await sleep(150);
    await quick.release(quickLock);
    await sleep(1_200);
    await slow.release(slowLock);
    await Promise.all(waiting);
    // Two waiters behind it for at least the 1.35 s it held on once both were seen waiting (charged
    // when the console sees the release, a moment after the waiters acquire); the quick holder kept
    // one waiter ~150 ms.
    await expect
      .poll(async () => (await waits()).topBlockers[0], { timeout: 3_000 })
      .toMatchObject({ id: slow.sessionId, waitCausedMs: expect.any(Number) });
    await expect
      .poll(async () => (await waits()).topBlockers[0]!.waitCausedMs, { timeout: 3_000 })
      .toBeGreaterThan(2 * 1_350 - 100);
    const blockers = (await waits()).topBlockers;
    const [first] = blockers;
    expect(first!.id).toBe(slow.sessionId);
    expect(first!.labels.service).toBe("slow-batch");
    expect(first!.locks).toEqual([slowLock]);
    const second = blockers.find((blocker) => blocker.id === quick.sessionId);
    expect(second!.locks).toEqual([quickLock]);
    expect(second!.waitCausedMs).toBeLessThan(first!.waitCausedMs / 3);
  });
});

describe("wait-time objectives", () => {
  it("burn moves when waits on the covered locks exceed the threshold, on the API and in the metrics", async () => {
    const burnOf = async () => (await waits()).objectives.find((o) => o.name === "orders")!;
    expect((await burnOf()).burnRate["1h"]).toBeNull();
    const [holder, waiter] = await Promise.all([contender("holder"), contender("orders-api")]);
    const covered = `${tc.prefix}orders:7`;
    const uncovered = `${tc.prefix}invoices:7`;
    for (const resource of [covered, uncovered]) {
      await holder.hold(resource);
      const waited = waiter.wait(resource);
      await sleep(400); // past the 150 ms threshold
      await holder.release(resource);
      await waited;
      await waiter.release(resource);
    }
    await expect.poll(async () => (await burnOf()).waits1h, { timeout: 2_000 }).toBe(1);
    const status = await burnOf();
    expect(status.bad1h).toBe(1);
    // One bad wait of one: a bad share of 1 over a budget of 1 − 0.9.
    expect(status.burnRate["1h"]).toBeCloseTo(10, 5);
    tc.ctx.contention.tick();
    const scrape = await call(metricsRoute.GET, "/api/metrics");
    expect(scrape.text).toMatch(
      /redlock_console_wait_objective_burn_rate\{objective="orders",window="1h"\} 10(\.0+\d*)?\n/,
    );
    expect(scrape.text).toContain(
      'redlock_console_wait_objective_waits_total{objective="orders",outcome="bad"} 1',
    );
  });
});

describe("a dead contender", () => {
  it("stops waiting when its session is proven gone, not when its entry lapses 30 s later", async () => {
    // "Gone" needs nodes up longer than the session window (60 heartbeats of 200 ms: 12 s): the
    // stubbed uptime says an hour.
    const [holder, doomed] = await Promise.all([contender("holder"), contender("doomed")]);
    const resource = `${tc.prefix}ledger:1`;
    await holder.hold(resource);
    void doomed.wait(resource).catch(() => undefined);
    await sleep(3_500); // older than the 3 s below which a wait is not asked about
    const killedAt = Date.now();
    doomed.kill();
    await expect
      .poll(
        () =>
          tc.ctx.contention.stats
            .waits(Date.now())
            .find((wait) => wait.participant === doomed.sessionId)?.outcome,
        { timeout: 6_000 },
      )
      .toBe("session-gone");
    const wait = tc.ctx.contention.stats
      .waits(Date.now())
      .find((w) => w.participant === doomed.sessionId)!;
    // Ended at its last heartbeat: before the kill, within a few heartbeats of it.
    expect(wait.endMs).toBeLessThanOrEqual(killedAt + 50);
    expect(killedAt - wait.endMs).toBeLessThan(1_000);
    tc.ctx.contention.tick();
    expect(tc.ctx.contention.graph().waits).toBe(0); // no longer shown as waiting
  });
});
