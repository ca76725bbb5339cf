/**
 * 1.x owner entries (`redlock:owner:<resource>` hashes, still read for one major version) and
 * waiters (`waitersKey(resource)` zsets) as the library writes them (see
 * lib/server/locks/read/ownership.ts), read by the snapshot, the one-lock route and the metrics on
 * real masters. 2.x owners, carried in the value, are read in console-owner.test.ts.
 */
import type { Redis } from "ioredis";
import { waitersKey } from "@redlock-console/redlock";
import { encodeValue } from "@/lib/redlock/value";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import * as locks from "@/app/api/locks/route";
import * as metrics from "@/app/api/metrics/route";
import type { LockResponse, LockRow, LocksResponse } from "@/lib/api";
import { connect, disconnect, sharedUrls } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const LONG_WAIT_MS = 8_000;
const ALL = [0, 1, 2, 3, 4];
let tc: TestConsole;
let nodes: Redis[];
let nowMs: number;
const key = (name: string) => `${tc.prefix}${name}`;
const hex = (char: string) => char.repeat(40);

async function putLock(name: string, value: string, on = ALL, ttlMs: number | null = 30_000) {
  await Promise.all(
    on.map((index) =>
      ttlMs === null
        ? nodes[index]!.set(key(name), value)
        : nodes[index]!.set(key(name), value, "PX", ttlMs),
    ),
  );
}

/** The owner entry exactly as the library's acquire script writes it. */
async function putOwner(
  name: string,
  entry: { value: string; labels: Record<string, string>; acquiredAt: number; extensions: number },
  on = ALL,
) {
  await Promise.all(
    on.map(async (index) => {
      const ownerKey = `redlock:owner:${key(name)}`;
      await nodes[index]!.hset(ownerKey, {
        value: entry.value,
        labels: JSON.stringify(entry.labels),
        acquiredAt: String(entry.acquiredAt),
        extensions: String(entry.extensions),
      });
      await nodes[index]!.pexpire(ownerKey, 30_000);
    }),
  );
}

/** A waiter as a contender registers it: member JSON, score = when its wait ends. */
async function putWaiter(name: string, id: string, sinceMs: number, expiresAtMs: number, on = ALL) {
  const member = JSON.stringify({
    id,
    labels: { service: "worker", pid: id.slice(0, 4) },
    since: sinceMs,
  });
  await Promise.all(
    on.map(async (index) => {
      await nodes[index]!.zadd(waitersKey(key(name)), expiresAtMs, member);
      await nodes[index]!.pexpire(waitersKey(key(name)), 60_000);
    }),
  );
}

async function snapshotRow(name: string): Promise<LockRow> {
  await tc.sync();
  const response = await call<LocksResponse>(locks.GET, "/api/locks?limit=1000");
  expect(response.status).toBe(200);
  const row = response.body.items.find((item) => item.resource === key(name));
  expect(row, name).toBeDefined();
  return row!;
}

async function detail(name: string): Promise<LockResponse> {
  await tc.sync();
  const response = await call<LockResponse>(
    lockRoute.GET,
    `/api/locks/${encodeURIComponent(key(name))}`,
  );
  expect(response.status).toBe(200);
  return response.body;
}

beforeAll(async () => {
  tc = startTestConsole(sharedUrls(), { longWaitMs: LONG_WAIT_MS });
  nodes = connect(sharedUrls());
  nowMs = Date.now();
  const labels = { service: "billing", host: "worker-7", pid: "4242" };
  await putLock("owned", hex("a"));
  // One node missed the last extend: the row shows the entry extended most.
  await putOwner(
    "owned",
    { value: hex("a"), labels, acquiredAt: nowMs - 2_000, extensions: 2 },
    [0, 1, 2, 3],
  );
  await putOwner(
    "owned",
    { value: hex("a"), labels, acquiredAt: nowMs - 2_000, extensions: 1 },
    [4],
  );
  await putWaiter("owned", "00000000000000a1", nowMs - 5_000, nowMs + 30_000);
  await putWaiter("owned", "00000000000000a2", nowMs - 1_000, nowMs + 30_000, [0, 1, 2]);
  // Its wait ended long ago: readers ignore it, however old its `since`.
  await putWaiter("owned", "00000000000000a3", nowMs - 600_000, nowMs - 1);

  // A foreign holder (node-redlock) on a key whose owner entry belongs to an earlier holder.
  await putLock("foreign", hex("b"));
  await putOwner("foreign", { value: hex("c"), labels, acquiredAt: nowMs - 1_000, extensions: 0 });

  await putLock("old", hex("d"));
  await putOwner("old", {
    value: hex("d"),
    labels: { service: "reports" },
    acquiredAt: nowMs - 600_000,
    extensions: 40,
  });
  // Without a TTL only an unmistakable lock format is a lock (issue 32 row 8): this library's value.
  await putLock("forever", encodeValue(hex("e"), '{"service":"batch"}', nowMs, 30_000), ALL, null);
  for (const index of [0, 1, 2]) {
    await nodes[index]!.hset(key("redisson"), "8c2f6a3e-1111-2222-3333-444455556666:57", "1");
    await nodes[index]!.pexpire(key("redisson"), 30_000);
  }
});

afterAll(async () => {
  await Promise.all(
    nodes.map(async (node) => {
      const keys = [
        ...(await node.keys(`${tc.prefix}*`)),
        ...(await node.keys(`redlock:owner:${tc.prefix}*`)),
        ...(await node.keys(`redlock:waiters:${tc.prefix}*`)),
      ];
      if (keys.length) await node.del(...keys);
    }),
  );
  await tc.close();
  await disconnect(nodes);
});

describe("owner entries in the snapshot", () => {
  it("shows the owner when the entry's value is the holder's, with the most extensions seen", async () => {
    const row = await snapshotRow("owned");
    expect(row.owner).toEqual({
      kind: "labelled",
      labels: { service: "billing", host: "worker-7", pid: "4242" },
      acquiredAt: nowMs - 2_000,
      ttlMs: null,
      extensions: 2,
    });
    expect(row.heldSince).toBe(nowMs - 2_000);
    expect(row.nodes.map((node) => node.owner?.extensions)).toEqual([2, 2, 2, 2, 1]);
    expect(row.flags).toEqual([]);
  });

  it("never shows a stale owner entry of another value: the foreign holder is unknown", async () => {
    const row = await snapshotRow("foreign");
    expect(row.value).toBe(hex("b"));
    expect(row.owner).toEqual({ kind: "unknown", format: "string" });
    expect(row.heldSince).toBeNull();
    expect(row.nodes.every((node) => node.owner === null)).toBe(true);
  });

  it("names the format of locks without an owner entry (Redisson hash)", async () => {
    const row = await snapshotRow("redisson");
    expect(row.owner).toEqual({ kind: "unknown", format: "redisson-hash" });
  });

  it("counts live waiters (the fullest node) and the oldest wait; ended waits are ignored", async () => {
    const row = await snapshotRow("owned");
    expect(row.waiters).toEqual({ count: 2, oldestSince: nowMs - 5_000 });
    expect((await snapshotRow("foreign")).waiters).toEqual({ count: 0, oldestSince: null });
  });

  it("flags long-held (default 5 min), no-TTL and long-waited locks", async () => {
    expect((await snapshotRow("old")).flags).toEqual(["long-held"]);
    expect((await snapshotRow("forever")).flags).toEqual(["no-ttl"]);
    // The oldest waiter of "owned" has waited 5 s at first: flagged once it passes LONG_WAIT_MS.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, nowMs - 5_000 + LONG_WAIT_MS + 50 - Date.now())),
    );
    expect((await snapshotRow("owned")).flags).toEqual(["long-wait"]);
  });

  it("never lists the owner or waiters keys as locks", async () => {
    const response = await call<LocksResponse>(locks.GET, "/api/locks?limit=1000");
    expect(response.body.items.some((row) => row.resource.startsWith("redlock:"))).toBe(false);
  });
});

describe("owner and waiters of one lock", () => {
  it("lists the owner per node and the waiters merged across nodes, longest waiting first", async () => {
    const body = await detail("owned");
    expect(body.lock?.owner).toMatchObject({ kind: "labelled", extensions: 2 });
    expect(body.lock?.nodes.map((node) => node.owner?.labels.service)).toEqual(
      Array(5).fill("billing"),
    );
    expect(body.lock?.waiterList).toEqual([
      {
        id: "00000000000000a1",
        labels: { service: "worker", pid: "0000" },
        since: nowMs - 5_000,
        expiresAt: nowMs + 30_000,
        nodeCount: 5,
      },
      {
        id: "00000000000000a2",
        labels: { service: "worker", pid: "0000" },
        since: nowMs - 1_000,
        expiresAt: nowMs + 30_000,
        nodeCount: 3,
      },
    ]);
  });

  it("shows no owner for the foreign holder of a key with a stale entry", async () => {
    const body = await detail("foreign");
    expect(body.lock?.owner).toEqual({ kind: "unknown", format: "string" });
    expect(body.lock?.nodes.every((node) => node.owner === null)).toBe(true);
    expect(body.lock?.waiterList).toEqual([]);
  });
});

describe("ownership metrics", () => {
  const gauge = (text: string, name: string) => {
    const line = text.split("\n").find((entry) => entry.startsWith(`${name} `));
    expect(line, name).toBeDefined();
    return Number(line!.split(" ")[1]);
  };

  it("exports the oldest lock's age, long-held and no-TTL counts, waiters and the oldest wait", async () => {
    const response = await call(metrics.GET, "/api/metrics");
    expect(response.status).toBe(200);
    const ageS = gauge(response.text, "redlock_console_oldest_lock_age_seconds");
    expect(ageS).toBeGreaterThanOrEqual(600);
    expect(ageS).toBeLessThan(600 + 120);
    expect(gauge(response.text, "redlock_console_long_held_locks")).toBe(1);
    expect(gauge(response.text, "redlock_console_locks_without_ttl")).toBe(1);
    expect(gauge(response.text, "redlock_console_waiters")).toBe(2);
    expect(gauge(response.text, "redlock_console_oldest_wait_seconds")).toBeGreaterThanOrEqual(5);
    expect(gauge(response.text, "redlock_console_long_wait_locks")).toBe(1);
    expect(gauge(response.text, "redlock_console_quorum_size")).toBe(3);
  });

  it("follows rows as they change: a lock held for an hour counts at once, and stops counting once released", async () => {
    const scrape = async () => (await call(metrics.GET, "/api/metrics")).text;
    const before = await scrape();
    const longHeld = gauge(before, "redlock_console_long_held_locks");
    const noTtl = gauge(before, "redlock_console_locks_without_ttl");
    const value = encodeValue(hex("f"), '{"service":"etl"}', Date.now() - 3_600_000, 30_000);
    await putLock("hour", value, ALL, null);
    await tc.sync();
    const held = await scrape();
    expect(gauge(held, "redlock_console_long_held_locks")).toBe(longHeld + 1);
    expect(gauge(held, "redlock_console_locks_without_ttl")).toBe(noTtl + 1);
    expect(gauge(held, "redlock_console_oldest_lock_age_seconds")).toBeGreaterThanOrEqual(3_600);
    await Promise.all(nodes.map((node) => node.del(key("hour"))));
    await tc.sync();
    const released = await scrape();
    expect(gauge(released, "redlock_console_long_held_locks")).toBe(longHeld);
    expect(gauge(released, "redlock_console_locks_without_ttl")).toBe(noTtl);
    expect(gauge(released, "redlock_console_oldest_lock_age_seconds")).toBeLessThan(3_600);
  });

  it("renders once for ten scrapes that arrive together, and again for a later one", async () => {
    const { metrics: consoleMetrics } = tc.ctx;
    const recordIndex = consoleMetrics.recordIndex;
    let renders = 0;
    consoleMetrics.recordIndex = (...args) => {
      renders += 1;
      recordIndex(...args);
    };
    try {
      const texts = await Promise.all(Array.from({ length: 10 }, () => tc.ctx.metricsText()));
      expect(renders).toBe(1);
      expect(new Set(texts).size).toBe(1);
      await tc.ctx.metricsText();
      expect(renders).toBe(2);
    } finally {
      consoleMetrics.recordIndex = recordIndex;
    }
  });
});
