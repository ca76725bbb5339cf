/**
 * Issue 32 row 9, black-box on real masters through the route handlers: the key cap
 * (CONSOLE_SCAN_MAX_KEYS) never makes a held lock look free. Past the cap the index says it is
 * incomplete (listing, node status, history horizon) and the lock page reads the nodes.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as events from "@/app/api/events/route";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import * as locks from "@/app/api/locks/route";
import * as nodesRoute from "@/app/api/nodes/route";
import type { EventsResponse, LockResponse, LocksResponse, NodesResponse } from "@/lib/api";
import Redlock from "@redlock-console/redlock";
import { connect, disconnect, usePrivateMasters } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const masters = usePrivateMasters(3);
let nodes: Redis[];
let redlock: Redlock;
let tc: TestConsole;

/** One script per node: `count` lock-shaped keys (40-digit tokens with a TTL), other holders' locks. */
async function fillWithOtherLocks(prefix: string, count: number) {
  const keys = Array.from({ length: count }, (_, index) => `${prefix}other:${index}`);
  await Promise.all(
    nodes.map((node) =>
      node.eval(
        "for i, key in ipairs(KEYS) do redis.call('SET', key, string.format('%040d', i), 'PX', 120000) end",
        keys.length,
        ...keys,
      ),
    ),
  );
}

beforeAll(async () => {
  nodes = connect(masters.masters().urls);
  redlock = new Redlock(nodes, { retryCount: 0, session: false });
  tc = startTestConsole(masters.masters().urls, { scanMaxKeys: 100, resyncIntervalMs: 2_000 });
  await tc.historyWhole();
});

afterAll(async () => {
  await tc.close();
  await disconnect(nodes);
});

describe("row 9: past CONSOLE_SCAN_MAX_KEYS the index says it is incomplete and the lock page reads the nodes", () => {
  it("200 other locks per node with a cap of 100, then a real lock on every node: the lock page says held, the listing, node status and history say incomplete", async () => {
    await fillWithOtherLocks(tc.prefix, 200);
    const resource = `${tc.prefix}real`;
    const lock = await redlock.acquire([resource], 30_000);
    await tc.sync();

    const page = await call<LockResponse>(
      lockRoute.GET,
      `/api/locks/${encodeURIComponent(resource)}`,
    );
    expect(page.status).toBe(200);
    expect(page.body.lock?.value).toBe(lock.value);
    expect(page.body.lock?.state).toBe("held");

    const listed = await call<LocksResponse>(locks.GET, "/api/locks?limit=10");
    expect(listed.body.truncated).toBe(true);
    expect(listed.body.listing.complete).toBe(false);

    const nodeList = await call<NodesResponse>(nodesRoute.GET, "/api/nodes");
    for (const node of nodeList.body.nodes) expect(node.index.truncated, node.id).toBe(true);

    const history = await call<EventsResponse>(events.GET, "/api/events?limit=10");
    expect(history.body.horizon.gapOpen).toBe(true);
    await lock.release();
  });

  it("once the other locks are gone, the next listing fits under the cap and the index is whole again", async () => {
    const keys = Array.from({ length: 200 }, (_, index) => `${tc.prefix}other:${index}`);
    await Promise.all(nodes.map((node) => node.del(...keys)));
    // The periodic resync (2 s here) relists every node: one that fits under the cap heals it.
    await vi.waitFor(
      async () => {
        const listed = await call<LocksResponse>(locks.GET, "/api/locks?limit=10");
        expect(listed.body.truncated).toBe(false);
        expect(listed.body.listing.complete).toBe(true);
        const history = await call<EventsResponse>(events.GET, "/api/events?limit=10");
        expect(history.body.horizon.gapOpen).toBe(false);
      },
      { timeout: 10_000, interval: 100 },
    );
  });
});
