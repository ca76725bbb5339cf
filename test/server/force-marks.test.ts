/**
 * Issue 32 row 11, black-box on real masters through the route handlers: a force-release mark
 * applies only to the value it deleted (a force-release of an absent key claims no later hold),
 * and an eviction on a minority of nodes is no release (a hold that goes on keeps going; a hold
 * lost to evictions ends as evicted, never as released).
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as events from "@/app/api/events/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import type { EventsResponse, Transition } from "@/lib/api";
import Redlock from "@redlock-console/redlock";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const masters = usePrivateMasters(3);
let nodes: Redis[];
let redlock: Redlock;
let tc: TestConsole;

beforeAll(async () => {
  nodes = connect(masters.masters().urls);
  redlock = new Redlock(nodes, { retryCount: 0, session: false });
  tc = startTestConsole(masters.masters().urls, { resyncIntervalMs: 3_600_000 });
  await tc.historyWhole();
});

afterAll(async () => {
  await tc.close();
  await disconnect(nodes);
});

async function eventsOf(resource: string): Promise<Transition[]> {
  const response = await call<EventsResponse>(
    events.GET,
    `/api/events?resource=${encodeURIComponent(resource)}&limit=100`,
  );
  expect(response.status).toBe(200);
  return response.body.transitions;
}

/** Evicts `resource` on `node` (maxmemory + allkeys-lru, then filler keys), then restores it. */
async function evict(node: Redis, resource: string) {
  const used = Number(/used_memory:(\d+)/.exec(await node.info("memory"))![1]);
  await node.config("SET", "maxmemory-policy", "allkeys-lru");
  try {
    await node.config("SET", "maxmemory", String(used + 200_000));
    for (let batch = 0; batch < 40 && (await node.exists(resource)); batch += 1) {
      const pipeline = node.pipeline();
      for (let index = 0; index < 100; index += 1)
        pipeline.set(`filler:${batch}:${index}`, "x".repeat(1_000));
      await pipeline.exec();
    }
    expect(await node.exists(resource)).toBe(0);
  } finally {
    await node.config("SET", "maxmemory", "0");
    await node.config("SET", "maxmemory-policy", "noeviction");
    const fillers = await node.keys("filler:*");
    if (fillers.length > 0) await node.del(...fillers);
  }
}

describe("row 11: a force-release mark applies only to the value it deleted", () => {
  it("a force-release of an absent key, then an unrelated hold that expires: recorded as expired, and the next holder is flagged afterExpired", async () => {
    const resource = `${tc.prefix}absent`;
    const forced = await call(forceRelease.POST, "/api/locks/force-release", {
      body: { resource, force: true, reason: "audit test" },
    });
    expect(forced.status).toBe(200);
    await redlock.acquire([resource], 700); // never released: it runs out
    await vi.waitFor(
      async () => expect((await eventsOf(resource)).map((t) => t.kind)).toContain("expired"),
      { timeout: 10_000, interval: 100 },
    );
    const next = await redlock.acquire([resource], 5_000);
    await tc.sync();
    const seen = await vi.waitFor(async () => {
      const found = await eventsOf(resource);
      expect(found.map((t) => t.kind)).toEqual(["acquired", "expired", "acquired"]);
      return found;
    });
    expect(seen[1]!.by).toBeNull();
    expect(seen[0]!.afterExpired).not.toBeNull();
    await next.release();
  });

  it("a force: any of a held lock is still recorded as force-released by its actor", async () => {
    const resource = `${tc.prefix}held`;
    await redlock.acquire([resource], 30_000);
    await tc.sync();
    const forced = await call(forceRelease.POST, "/api/locks/force-release", {
      body: { resource, force: true, reason: "stuck job" },
    });
    expect(forced.status).toBe(200);
    // Issue 39: force: true tombstones the value, so "releasing" (the tombstone) follows the hold's end.
    await vi.waitFor(async () => {
      const [reserved, ended] = await eventsOf(resource);
      expect(reserved).toMatchObject({ kind: "releasing", reason: "stuck job" });
      expect(ended).toMatchObject({ kind: "force-released", reason: "stuck job" });
    });
  });
});

describe("row 11: an eviction on a minority of nodes is not a release", () => {
  it("a hold on three nodes evicted on one goes on (one evicted transition), and ends as the holder's release", async () => {
    const resource = `${tc.prefix}evicted-minority`;
    const lock = await redlock.acquire([resource], 30_000);
    await tc.sync();
    await evict(nodes[0]!, resource);
    await tc.sync();
    await sleep(300);
    expect((await eventsOf(resource)).map((t) => [t.kind, t.nodeIds])).toEqual([
      ["evicted", ["node-1"]],
      ["acquired", []],
    ]);
    await lock.release();
    await vi.waitFor(async () =>
      expect((await eventsOf(resource)).map((t) => t.kind)).toEqual([
        "released",
        "evicted",
        "acquired",
      ]),
    );
  });

  it("a hold on two nodes of three that loses one to eviction ends as evicted, never as released", async () => {
    const resource = `${tc.prefix}evicted-majority`;
    // Another holder's value on the third node: the library's lock lands on two of three.
    await nodes[2]!.set(resource, "f".repeat(40), "PX", 30_000);
    const lock = await redlock.acquire([resource], 30_000);
    await tc.sync();
    await evict(nodes[0]!, resource);
    await tc.sync();
    // The hold's own transitions: the conflict left behind (its value on node-2, another on
    // node-3) is an episode reported after 1 s, and a gap is the whole index's; neither ends it.
    const ownTransitions = async () =>
      (await eventsOf(resource)).filter((t) => t.kind !== "conflict" && t.kind !== "gap");
    const seen = await vi.waitFor(async () => {
      const found = await ownTransitions();
      expect(found.map((t) => t.kind)).toEqual(["evicted", "acquired"]);
      return found;
    });
    expect(seen[0]).toMatchObject({ nodeIds: ["node-1"], value: lock.value });
    expect(seen[0]!.heldMs).not.toBeNull();
    expect(seen[0]!.summary).toMatch(/lost its majority to evictions on node-1/);
    await sleep(300);
    expect((await ownTransitions()).map((t) => t.kind)).toEqual(["evicted", "acquired"]);
    await nodes[2]!.del(resource);
  });
});
