/**
 * A session's release decides each batch of locks from a liveness read just before it (issue 39:
 * the verdict was read once and applied to up to 256 locks), and its preview says what a
 * force-release does now: a tombstone, whatever the liveness ("gone" is a guess). "gone" needs
 * nodes up longer than the session window: their uptime is stubbed (node-uptime.ts), everything
 * else is read from the shared masters.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as releaseSession from "@/app/api/sessions/[id]/release/route";
import type { HolderSessionReleaseResponse } from "@/lib/api";
import { actionFor, CONCURRENCY, inFreshBatches } from "@/lib/server/actions/release-session-lock";
import type { Liveness } from "@/lib/server/sessions/liveness";
import { readLiveness } from "@/lib/server/sessions/read-session";
import { connect, disconnect, sharedUrls } from "../masters";
import type { Redis } from "ioredis";
import { FakeHolderSession } from "./fixtures/holder-session";
import { call, startTestConsole, type TestConsole } from "./helpers";

/** Liveness reads of the session under test, counted as they reach the nodes. */
const reads = vi.hoisted(() => ({ of: "", count: 0 }));
vi.mock("@/lib/server/sessions/read-session", async (importOriginal) => {
  const original = await importOriginal<typeof import("@/lib/server/sessions/read-session")>();
  return {
    ...original,
    readLiveness: (...args: Parameters<typeof original.readLiveness>) => {
      if (args[1] === reads.of) reads.count += 1;
      return original.readLiveness(...args);
    },
  };
});
vi.mock("@/lib/server/sessions/node-uptime", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/server/sessions/node-uptime")>()),
  readUptimeS: async () => 3_600,
}));

/** Older than LATE_AFTER (3 heartbeats of 1 s): a crashed holder's last heartbeat. */
const LATE_AGE_MS = 3_500;
let tc: TestConsole;
let nodes: Redis[];
const sessions: FakeHolderSession[] = [];
beforeAll(async () => {
  tc = startTestConsole(sharedUrls());
  nodes = connect(sharedUrls());
  await tc.ready();
  // A node counts toward "gone" only once the console has watched it since before the heartbeat
  // was written (issue 39): the crashed heartbeats below are LATE_AGE_MS old, so watch longer first.
  await new Promise((resolve) => setTimeout(resolve, LATE_AGE_MS + 500));
});
afterAll(async () => {
  for (const session of sessions) session.close();
  await Promise.all(
    nodes.map(async (node) => {
      const keys = await node.keys(`${tc.prefix}*`);
      if (keys.length) await node.del(...keys);
    }),
  );
  await tc.close();
  await disconnect(nodes);
});

const liveness = (id: string) => readLiveness(tc.ctx.registry.nodes, id, tc.ctx.nodeDeadlineMs);
async function aliveSession(): Promise<FakeHolderSession> {
  const session = await FakeHolderSession.open(sharedUrls().map((url) => ({ url })));
  sessions.push(session);
  await session.heartbeat(200);
  return session;
}
/** The process crashes: its heartbeat goes late and its connections close. */
async function crash(session: FakeHolderSession): Promise<void> {
  await session.heartbeat(LATE_AGE_MS);
  session.close();
  await expect.poll(async () => (await liveness(session.id)).state).toBe("gone");
}

describe("the batches of a session's release", () => {
  it("read the liveness before every batch: a session that crashed mid-release is forced only from the next batch", async () => {
    const session = await aliveSession();
    const items = Array.from({ length: 2 * CONCURRENCY + 4 }, (_, at) => at);
    let reads = 0;
    const decided: Array<[number, Liveness["state"], "ask" | "force"]> = [];
    await inFreshBatches(
      items,
      async () => {
        reads += 1;
        return liveness(session.id);
      },
      async (item, read) => {
        decided.push([item, read.state, actionFor(read, false)]);
        if (item === 0) await crash(session);
      },
    );
    expect(reads).toBe(3);
    const byItem = new Map(decided.map(([item, state, action]) => [item, [state, action]]));
    for (const item of items)
      expect(byItem.get(item)).toEqual(item < CONCURRENCY ? ["alive", "ask"] : ["gone", "force"]);
  });

  it("force: true forces every batch, whatever the liveness", () => {
    for (const state of ["alive", "unresponsive", "gone", "unknown"] as const)
      expect(actionFor({ state, lastSeenAt: null, labels: {} }, true)).toBe("force");
    expect(actionFor({ state: "unresponsive", lastSeenAt: null, labels: {} }, false)).toBe("ask");
    expect(actionFor({ state: "unknown", lastSeenAt: null, labels: {} }, false)).toBe("ask");
  });
});

describe("the route", () => {
  it("reads the session's liveness from the nodes once per batch of locks, not once for all", async () => {
    const session = await aliveSession();
    const count = 2 * CONCURRENCY + 1;
    const resources = Array.from({ length: count }, (_, n) => `${tc.prefix}batched-${n}`);
    await Promise.all(
      resources.flatMap((resource) => {
        const value = session.value();
        return nodes.map((node) => node.set(resource, value, "PX", 60_000));
      }),
    );
    await crash(session);
    await tc.sync();
    reads.of = session.id;
    reads.count = 0;
    const released = await call<HolderSessionReleaseResponse>(
      releaseSession.POST,
      `/api/sessions/${session.id}/release`,
      { body: { reason: "worker crashed" } },
    );
    reads.of = "";
    expect(reads.count).toBe(3);
    expect(released.body.locks.map((lock) => [lock.action, lock.outcome])).toEqual(
      resources.map(() => ["force", "released"]),
    );
  });
});

describe("the preview of a gone session's release", () => {
  it('says "tombstoned" for every lock: a force-release never deletes a value with validity', async () => {
    const session = await aliveSession();
    const resources = [1, 2].map((n) => `${tc.prefix}gone-lock-${n}`);
    await Promise.all(
      resources.flatMap((resource) => {
        const value = session.value();
        return nodes.map((node) => node.set(resource, value, "PX", 60_000));
      }),
    );
    await crash(session);
    await tc.sync();
    const preview = await call<HolderSessionReleaseResponse>(
      releaseSession.POST,
      `/api/sessions/${session.id}/release`,
      { body: { reason: "worker crashed", preview: true } },
    );
    expect(preview.body).toMatchObject({ holderState: "gone", preview: true });
    expect(
      preview.body.locks.map((lock) => [lock.resource, lock.action, lock.mode]).sort(),
    ).toEqual(resources.map((resource) => [resource, "force", "tombstoned"]));
  });
});
