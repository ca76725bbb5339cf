// test-group: timed
/**
 * "gone" on real masters and on a Redis Cluster node. A node counts toward gone only once up longer
 * than the session window (60 s), and the test masters started seconds ago: their uptime is stubbed
 * here (node-uptime.ts), everything else is read from the servers. A node also counts only when the
 * console has seen its `timeout` 0 (and the same server for the session key) since before the
 * heartbeat was written (issue 39): the heartbeats here are written LATE_AGE_MS old, so each console
 * watches its nodes longer than that before the tests.
 * Gone is a guess: a force-release of a gone holder's lock tombstones it like any other (issue 39),
 * shown here with a real using() holder in a process of its own, SIGSTOPped while its connections
 * are killed.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import Redlock, { clusterSlot } from "@redlock-console/redlock";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as releaseSession from "@/app/api/sessions/[id]/release/route";
import type { ForceReleaseResponse, HolderSessionReleaseResponse } from "@/lib/api";
import { readLiveness } from "@/lib/server/sessions/read-session";
import { Redis } from "ioredis";
import { ownerOfSlot, startCluster, type Cluster } from "../cluster";
import { sharedUrls, sleep } from "../masters";
import { FakeHolderSession } from "./fixtures/holder-session";
import {
  forkUsingHolder,
  killConnections,
  overlapsIn,
  type Interval,
} from "./fixtures/using-holder-process";
import { call, startTestConsole, type TestConsole } from "./helpers";

vi.mock("@/lib/server/sessions/node-uptime", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/server/sessions/node-uptime")>()),
  readUptimeS: async () => 3_600,
}));

/** Late for a 1 s heartbeat (LATE_AFTER 3 s). */
const LATE_AGE_MS = 3_500;
const sessions: FakeHolderSession[] = [];
const track = (session: FakeHolderSession) => (sessions.push(session), session);

afterAll(() => {
  for (const session of sessions) session.close();
});

describe("gone, on single masters up longer than the session window", () => {
  let tc: TestConsole;
  beforeAll(async () => {
    tc = startTestConsole(sharedUrls());
    await tc.ready();
    await sleep(LATE_AGE_MS + 500);
  });
  afterAll(() => tc.close());
  const liveness = (id: string) => readLiveness(tc.ctx.registry.nodes, id, tc.ctx.nodeDeadlineMs);

  it("reads late heartbeats whose connections closed on a majority as gone", async () => {
    const session = track(await FakeHolderSession.open(sharedUrls().map((url) => ({ url }))));
    await session.heartbeat(LATE_AGE_MS);
    session.close();
    await expect.poll(async () => (await liveness(session.id)).state).toBe("gone");
  });

  // Issue 39 supersedes issue 31's "a gone holder's lock is released at once": gone is a guess
  // (closed connections and a late heartbeat), so its value is tombstoned like any other, and a
  // contender waits until the validity (plus drift) ends or the holder acknowledges.
  it("force-release tombstones a gone holder's lock, never deletes it: nobody acquires before its validity ends", async () => {
    const session = track(await FakeHolderSession.open(sharedUrls().map((url) => ({ url }))));
    await session.heartbeat(LATE_AGE_MS);
    const value = session.value(3_000);
    const resource = `${tc.prefix}gone-holder`;
    const clients = sharedUrls().map((url) => new Redis(url));
    try {
      await Promise.all(clients.map((client) => client.set(resource, value, "PX", 3_000)));
      session.close();
      await expect.poll(async () => (await liveness(session.id)).state).toBe("gone");
      const readAt = Date.now();
      const pttls = await Promise.all(clients.map((client) => client.pttl(resource)));
      const response = await call<ForceReleaseResponse>(
        forceRelease.POST,
        "/api/locks/force-release",
        { body: { resource, expectedValue: value, reason: "worker crashed" } },
      );
      expect(response.body).toMatchObject({
        mode: "tombstoned",
        holderState: "gone",
        deletedCount: 0,
        tombstonedCount: 5,
      });
      expect(response.body.summary).toContain(
        "its connections closed and it stopped heartbeating: probably crashed",
      );
      expect(response.body.summary).toContain("nobody else gets it for at most");
      const stored = await Promise.all(clients.map((client) => client.get(resource)));
      expect(stored.every((found) => found?.startsWith(`rlx:${value.slice(4, 44)}:`))).toBe(true);
      // Nobody acquires (SET NX on a majority) before the replaced value's validity ends, and an
      // attempt begun once `reservedUntil` has passed succeeds: the answer's number is the bound.
      let acquiredAt = 0;
      let lastFailedAttemptAt = 0;
      while (acquiredAt === 0) {
        const attemptAt = Date.now();
        const granted = await Promise.all(
          clients.map((client) => client.set(resource, "next-holder", "PX", 5_000, "NX")),
        );
        if (granted.filter((reply) => reply === "OK").length >= 3) acquiredAt = Date.now();
        else {
          lastFailedAttemptAt = attemptAt;
          // As a Redlock contender does, a failed attempt gives back the keys it got. Kept, they
          // blocked its own next attempts: the tombstones end at different moments on a loaded
          // machine, each attempt then won only the nodes freed since the last, never three at
          // once, and the loop ran past the test's timeout (a CI run beside the busy loops).
          await Promise.all(
            clients.map((client, at) => (granted[at] === "OK" ? client.del(resource) : null)),
          );
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
      // Each tombstone lasts its node's PTTL at the write plus drift: past the PTTLs read before.
      expect(acquiredAt - readAt).toBeGreaterThanOrEqual(Math.min(...pttls));
      // Redis expires at 1 ms precision on its own clock: a failed attempt up to 2 ms past it.
      expect(lastFailedAttemptAt).toBeLessThanOrEqual(response.body.reservedUntil! + 2);
    } finally {
      for (const client of clients) client.disconnect();
    }
  });

  it("releasing a gone session's locks tombstones them (issue 39), never deletes them", async () => {
    const session = track(await FakeHolderSession.open(sharedUrls().map((url) => ({ url }))));
    await session.heartbeat(LATE_AGE_MS);
    const resource = `${tc.prefix}gone-session-lock`;
    const clients = sharedUrls().map((url) => new Redis(url));
    try {
      const value = session.value();
      await Promise.all(clients.map((client) => client.set(resource, value, "PX", 60_000)));
      session.close();
      await tc.sync();
      await expect.poll(async () => (await liveness(session.id)).state).toBe("gone");
      const response = await call<HolderSessionReleaseResponse>(
        releaseSession.POST,
        `/api/sessions/${session.id}/release`,
        { body: { reason: "worker crashed" } },
      );
      expect(response.body).toMatchObject({ holderState: "gone" });
      expect(response.body.locks).toMatchObject([
        { resource, mode: "tombstoned", outcome: "released", tombstonedCount: 5, deletedCount: 0 },
      ]);
      const stored = await Promise.all(clients.map((client) => client.get(resource)));
      expect(stored.every((found) => found?.startsWith("rlx:"))).toBe(true);
    } finally {
      for (const client of clients) client.disconnect();
    }
  });

  it("a live using() holder read gone (SIGSTOPped, its connections CLIENT KILLed) is tombstoned: a contender retrying every 10 ms never works while its routine runs, and its signal aborts", async () => {
    const resource = `${tc.prefix}stopped-holder:${randomUUID()}`;
    const connectionName = `using-holder-${randomUUID().slice(0, 8)}`;
    const holder = forkUsingHolder({
      resource,
      ttlMs: 10_000,
      windDownMs: 100,
      connectionName,
      urls: sharedUrls(),
    });
    const clients = sharedUrls().map((url) => new Redis(url));
    const contender = new Redlock(
      sharedUrls().map((url) => new Redis(url)),
      { retryCount: 0 },
    );
    let stopped = false;
    try {
      const started = await holder.next("start");
      const held = await holder.next("held");
      await expect.poll(async () => (await liveness(held.sessionId)).state).toBe("alive");
      holder.child.kill("SIGSTOP");
      stopped = true;
      await killConnections(clients, connectionName);
      await expect
        .poll(async () => (await liveness(held.sessionId)).state, { timeout: 8_000 })
        .toBe("gone");
      const journal: Interval[] = [];
      const contending = (async () => {
        const lock = await contender.acquire([resource], 5_000, {
          retryCount: -1,
          retryDelay: 10,
          retryJitter: 0,
          signal: AbortSignal.timeout(20_000),
        });
        const startMs = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 50));
        journal.push({ who: "contender", startMs, endMs: Date.now() });
        await lock.release();
      })();
      const response = await call<ForceReleaseResponse>(
        forceRelease.POST,
        "/api/locks/force-release",
        { body: { resource, expectedValue: held.value, reason: "worker looks crashed" } },
      );
      // Stopped a while longer, as a process in a long pause is, while the contender retries.
      await new Promise((resolve) => setTimeout(resolve, 500));
      holder.child.kill("SIGCONT");
      stopped = false;
      const aborted = await holder.next("aborted");
      const ended = await holder.next("end");
      journal.push({ who: "holder", startMs: started.atMs, endMs: ended.atMs });
      await contending;
      expect(overlapsIn(journal)).toEqual([]);
      expect(response.body).toMatchObject({
        mode: "tombstoned",
        holderState: "gone",
        tombstonedCount: 5,
      });
      expect(aborted).toMatchObject({
        error: "LockForceReleasedError",
        auditId: response.body.auditId,
      });
    } finally {
      if (stopped) holder.child.kill("SIGCONT");
      holder.child.kill();
      await contender.quit().catch(() => undefined);
      for (const client of clients) client.disconnect();
    }
  }, 30_000);

  it("needs the proof on a majority: closed on two of five is unresponsive", async () => {
    const session = track(await FakeHolderSession.open(sharedUrls().map((url) => ({ url }))));
    await session.heartbeat(LATE_AGE_MS);
    session.close([0, 1]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await liveness(session.id)).state).toBe("unresponsive");
  });
});

describe("a Redis Cluster lock node", () => {
  let cluster: Cluster;
  let tc: TestConsole;
  beforeAll(async () => {
    cluster = await startCluster(3, 0);
    tc = startTestConsole([`redis://127.0.0.1:${cluster.primaryPorts[0]}?cluster=true`]);
    await tc.ready();
    await sleep(LATE_AGE_MS + 500);
  }, 60_000);
  afterAll(async () => {
    await tc?.close();
    await cluster?.stop();
  });
  const liveness = (id: string) => readLiveness(tc.ctx.registry.nodes, id, tc.ctx.nodeDeadlineMs);

  /** A session whose key lives on a primary other than the client's seed. */
  async function sessionOffTheSeed(): Promise<FakeHolderSession> {
    const seed = new Redis(cluster.seeds[0]!);
    try {
      for (;;) {
        const session = track(await FakeHolderSession.open([{ clusterSeed: cluster.seeds[0]! }]));
        const owner = await ownerOfSlot(seed, clusterSlot(session.key));
        if (owner.port !== cluster.primaryPorts[0]) return session;
        session.close();
      }
    } finally {
      seed.disconnect();
    }
  }

  it("asks the primary owning the session key whether the heartbeat's connection is open", async () => {
    const session = await sessionOffTheSeed();
    await session.heartbeat(200);
    expect((await liveness(session.id)).state).toBe("alive");
    await session.heartbeat(LATE_AGE_MS);
    expect((await liveness(session.id)).state).toBe("unresponsive");
    session.close();
    await expect.poll(async () => (await liveness(session.id)).state).toBe("gone");
  });
});
