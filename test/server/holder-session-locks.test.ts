/**
 * Holder sessions in the lock API, on the shared masters: `GET /api/locks/{resource}` carries the
 * holder's session, and force-release acts on its liveness (tombstone, delete, or the operator's
 * choice for a holder without a session). Holder values, heartbeats and connections are written by
 * the test itself, per docs/holder-sessions.md.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import type { LockResponse } from "@/lib/api";
import { connect, disconnect, sharedUrls } from "../masters";
import { FakeHolderSession } from "./fixtures/holder-session";
import { call, startTestConsole, type TestConsole } from "./helpers";

let tc: TestConsole;
let nodes: Redis[];
const sessions: FakeHolderSession[] = [];
const key = (name: string) => `${tc.prefix}${name}`;
/** Sets `value` on every node, then waits until the live index has it. */
async function setEverywhere(name: string, value: string, ttlMs = 60_000): Promise<void> {
  await Promise.all(nodes.map((node) => node.set(name, value, "PX", ttlMs)));
  await tc.sync();
}
const openSession = async () => {
  const session = await FakeHolderSession.open(sharedUrls().map((url) => ({ url })));
  sessions.push(session);
  return session;
};
const readLock = (name: string) =>
  call<LockResponse>(lockRoute.GET, `/api/locks/${encodeURIComponent(name)}`);

beforeAll(async () => {
  tc = startTestConsole(sharedUrls());
  nodes = connect(sharedUrls());
  await tc.ready();
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

describe("GET /api/locks/{resource}: the holder's session", () => {
  it("is null for a free resource", async () => {
    const response = await readLock(key("free"));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ lock: null, holderSession: null });
  });

  it("is explicitly unknown for a holder whose value carries no session id", async () => {
    await setEverywhere(key("plain"), "a".repeat(40));
    const response = await readLock(key("plain"));
    expect(response.body.holderSession).toEqual({
      id: null,
      state: "unknown",
      lastSeenAt: null,
      labels: {},
    });
  });

  it("is alive, with its labels and last heartbeat, for a holder whose session beats", async () => {
    const session = await openSession();
    await session.heartbeat(300);
    const value = session.value();
    await setEverywhere(key("alive"), value);
    const before = Date.now();
    const response = await readLock(key("alive"));
    expect(response.body.lock?.value).toBe(value);
    expect(response.body.holderSession).toMatchObject({
      id: session.id,
      state: "alive",
      labels: session.labels,
    });
    expect(response.body.holderSession!.lastSeenAt).toBeGreaterThan(before - 2_000);
  });

  it("is unresponsive when its heartbeat is late, labels then from the lock's value", async () => {
    const session = await openSession();
    await session.heartbeat(10_000, [0, 1]);
    await setEverywhere(key("late"), session.value());
    const response = await readLock(key("late"));
    expect(response.body.holderSession).toMatchObject({ id: session.id, state: "unresponsive" });
    expect(response.body.holderSession!.labels).toEqual(session.labels);
  });
});
