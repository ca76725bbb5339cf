/**
 * "gone" on real masters and on a Redis Cluster node. A node counts toward gone only once up longer
 * than the session window (60 s), and the test masters started seconds ago: their uptime is stubbed
 * here (node-uptime.ts), everything else is read from the servers.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { clusterSlot } from "@redlock-console/redlock";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as releaseSession from "@/app/api/sessions/[id]/release/route";
import type { ForceReleaseResponse, HolderSessionReleaseResponse } from "@/lib/api";
import { readLiveness } from "@/lib/server/sessions/read-session";
import { Redis } from "ioredis";
import { ownerOfSlot, startCluster, type Cluster } from "../cluster";
import { sharedUrls } from "../masters";
import { FakeHolderSession } from "./fixtures/holder-session";
import { call, startTestConsole, type TestConsole } from "./helpers";

vi.mock("@/lib/server/sessions/node-uptime", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/server/sessions/node-uptime")>()),
  readUptimeS: async () => 3_600,
}));

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
  });
  afterAll(() => tc.close());
  const liveness = (id: string) => readLiveness(tc.ctx.registry.nodes, id, tc.ctx.nodeDeadlineMs);

  it("reads late heartbeats whose connections closed on a majority as gone", async () => {
    const session = track(await FakeHolderSession.open(sharedUrls().map((url) => ({ url }))));
    await session.heartbeat(10_000);
    session.close();
    await expect.poll(async () => (await liveness(session.id)).state).toBe("gone");
  });

  it("force-release deletes a gone holder's lock at once (compare-and-delete, no tombstone)", async () => {
    const session = track(await FakeHolderSession.open(sharedUrls().map((url) => ({ url }))));
    await session.heartbeat(10_000);
    const value = session.value();
    const resource = `${tc.prefix}gone-holder`;
    const clients = sharedUrls().map((url) => new Redis(url));
    try {
      await Promise.all(clients.map((client) => client.set(resource, value, "PX", 60_000)));
      session.close();
      await expect.poll(async () => (await liveness(session.id)).state).toBe("gone");
      const response = await call<ForceReleaseResponse>(
        forceRelease.POST,
        "/api/locks/force-release",
        { body: { resource, expectedValue: value, reason: "worker crashed" } },
      );
      expect(response.body).toMatchObject({
        mode: "deleted",
        holderState: "gone",
        deletedCount: 5,
      });
      expect(await Promise.all(clients.map((client) => client.get(resource)))).toEqual(
        Array(5).fill(null),
      );
    } finally {
      for (const client of clients) client.disconnect();
    }
  });

  it("releasing a gone session's locks deletes them at once", async () => {
    const session = track(await FakeHolderSession.open(sharedUrls().map((url) => ({ url }))));
    await session.heartbeat(10_000);
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
        { resource, mode: "deleted", outcome: "released", deletedCount: 5 },
      ]);
      expect(await Promise.all(clients.map((client) => client.get(resource)))).toEqual(
        Array(5).fill(null),
      );
    } finally {
      for (const client of clients) client.disconnect();
    }
  });

  it("needs the proof on a majority: closed on two of five is unresponsive", async () => {
    const session = track(await FakeHolderSession.open(sharedUrls().map((url) => ({ url }))));
    await session.heartbeat(10_000);
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
    await session.heartbeat(10_000);
    expect((await liveness(session.id)).state).toBe("unresponsive");
    session.close();
    await expect.poll(async () => (await liveness(session.id)).state).toBe("gone");
  });
});
