/**
 * The live index on real masters: every event a lock of each recognised format goes through reaches
 * the index by notification alone (no resync: its interval is an hour here); a killed subscriber
 * and a node that restarts empty heal by a relist; the budget holds (INFO commandstats); viewers
 * cost the masters nothing; a node without notifications is polled, or has them turned on.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as locks from "@/app/api/locks/route";
import type { LockRow, LocksResponse } from "@/lib/api";
import { callsPerCommand } from "@/scripts/command-stats";
import Redlock, { legacyOwnerKey, waitersKey } from "@redlock-console/redlock";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const masters = usePrivateMasters(5);
const solo = usePrivateMasters(1);
let tc: TestConsole;
let nodes: Redis[];
const ALL = [0, 1, 2, 3, 4];
const name = (suffix: string) => `${tc.prefix}${suffix}`;

/** The row of `resource` as `/api/locks` shows it now (undefined: not listed). */
async function rowOf(resource: string): Promise<LockRow | undefined> {
  const query = `?match=${encodeURIComponent(resource.replace(/[*?[\\]/g, "\\$&"))}`;
  const response = await call<LocksResponse>(locks.GET, `/api/locks${query}`);
  return response.body.items.find((row) => row.resource === resource);
}

/**
 * Polls `/api/locks` until `check` passes on the row; returns how long that took. No sync(): what
 * is tested is that a notification alone brings the change.
 */
async function seenWithin(
  resource: string,
  check: (row: LockRow | undefined) => boolean,
  timeoutMs = 2_000,
): Promise<number> {
  const startedAt = performance.now();
  for (;;) {
    const row = await rowOf(resource);
    if (check(row)) return performance.now() - startedAt;
    if (performance.now() - startedAt > timeoutMs)
      throw new Error(`${resource}: not as expected after ${timeoutMs} ms: ${JSON.stringify(row)}`);
    await sleep(10);
  }
}

const modes = () => tc.ctx.index.listing().nodes.map((node) => node.mode);

beforeAll(async () => {
  nodes = connect(masters.masters().urls);
  tc = startTestConsole(masters.masters().urls, { resyncIntervalMs: 3_600_000 });
  await tc.sync();
});

afterAll(async () => {
  await tc.close();
  await disconnect(nodes);
});

describe("notifications reach the index, for every event of every format", () => {
  it("watches every node, listed once", () => {
    expect(modes()).toEqual(Array(5).fill("watching"));
    expect(tc.ctx.index.listing().complete).toBe(true);
  });

  it("a plain string lock: set, value change, pexpire, rename, del, expiry", async () => {
    const resource = name("plain");
    await Promise.all(ALL.map((i) => nodes[i]!.set(resource, "a".repeat(40), "PX", 10_000)));
    await seenWithin(resource, (row) => row?.state === "held" && row.quorum === 5);
    // Another value on two nodes: a conflict.
    await Promise.all([3, 4].map((i) => nodes[i]!.set(resource, "b".repeat(40), "PX", 10_000)));
    await seenWithin(resource, (row) => row?.state === "conflict");
    await Promise.all([3, 4].map((i) => nodes[i]!.set(resource, "a".repeat(40), "PX", 10_000)));
    // pexpire (an extension by a foreign client) moves the validity.
    await Promise.all(ALL.map((i) => nodes[i]!.pexpire(resource, 60_000)));
    await seenWithin(resource, (row) => (row?.validityMs ?? 0) > 50_000);
    // rename_from / rename_to: the lock moves to another name.
    const renamed = name("plain-renamed");
    await Promise.all(ALL.map((i) => nodes[i]!.rename(resource, renamed)));
    await seenWithin(resource, (row) => row === undefined);
    await seenWithin(renamed, (row) => row?.state === "held");
    await Promise.all(ALL.map((i) => nodes[i]!.del(renamed)));
    await seenWithin(renamed, (row) => row === undefined);
    // A key that runs out (expired).
    const short = name("short");
    await Promise.all(ALL.map((i) => nodes[i]!.set(short, "c".repeat(40), "PX", 300)));
    await seenWithin(short, (row) => row?.state === "held");
    await seenWithin(short, (row) => row === undefined, 3_000);
  });

  it("this library's 2.x lock: acquire (owner in the value), extend, release; waiters", async () => {
    // No holder session: it cannot be quit (it shares the test's clients), and its heartbeat would
    // go on SETting on the nodes whose idle cost the load-budget test below counts.
    const redlock = new Redlock(nodes, {
      retryCount: 0,
      owner: { service: "index-test" },
      session: false,
    });
    const resource = name("library");
    const lock = await redlock.acquire([resource], 5_000);
    await seenWithin(
      resource,
      (row) =>
        row?.state === "held" &&
        row.owner.kind === "labelled" &&
        row.owner.labels.service === "index-test",
    );
    const extended = await lock.extend(60_000);
    await seenWithin(resource, (row) => (row?.validityMs ?? 0) > 50_000);
    // A waiter registers in the waiters zset (zadd): the row counts it.
    const member = JSON.stringify({ id: "w1", labels: {}, since: Date.now() });
    await Promise.all(
      ALL.map((i) => nodes[i]!.zadd(waitersKey(resource), Date.now() + 30_000, member)),
    );
    await seenWithin(resource, (row) => row?.waiters.count === 1);
    await Promise.all(ALL.map((i) => nodes[i]!.zrem(waitersKey(resource), member)));
    await seenWithin(resource, (row) => row?.waiters.count === 0);
    await extended.release();
    await seenWithin(resource, (row) => row === undefined);
  });

  it("a 1.x lock: the owner hash written after the value (hset) is shown", async () => {
    const resource = name("legacy");
    const value = "d".repeat(40);
    await Promise.all(ALL.map((i) => nodes[i]!.set(resource, value, "PX", 10_000)));
    await seenWithin(resource, (row) => row?.owner.kind === "unknown");
    await Promise.all(
      ALL.map((i) =>
        nodes[i]!.hset(legacyOwnerKey(resource), {
          value,
          labels: JSON.stringify({ service: "one-x" }),
          acquiredAt: String(Date.now()),
          extensions: "2",
        }),
      ),
    );
    await seenWithin(
      resource,
      (row) => row?.owner.kind === "labelled" && row.owner.labels.service === "one-x",
    );
    await Promise.all(ALL.map((i) => nodes[i]!.del(resource, legacyOwnerKey(resource))));
    await seenWithin(resource, (row) => row === undefined);
  });

  it("a Redisson hash lock: hincrby + pexpire, re-entry, hdel", async () => {
    const resource = name("redisson");
    const field = "8c2f6a3e-1111-2222-3333-444455556666:57";
    for (const i of ALL) {
      await nodes[i]!.hincrby(resource, field, 1);
      await nodes[i]!.pexpire(resource, 30_000);
    }
    await seenWithin(resource, (row) => row?.state === "held" && row.format === "redisson-hash");
    await Promise.all(ALL.map((i) => nodes[i]!.hincrby(resource, field, 1)));
    await seenWithin(resource, (row) => row?.nodes[0]?.holdCount === 2);
    await Promise.all(ALL.map((i) => nodes[i]!.hdel(resource, field)));
    await seenWithin(resource, (row) => row === undefined);
  });

  it("an evicted lock key leaves the index (maxmemory + allkeys-lru on a node)", async () => {
    const resource = name("evicted");
    await Promise.all(ALL.map((i) => nodes[i]!.set(resource, "e".repeat(40), "PX", 60_000)));
    await seenWithin(resource, (row) => row?.quorum === 5);
    const node = nodes[4]!;
    const used = Number(/used_memory:(\d+)/.exec(await node.info("memory"))![1]);
    await node.config("SET", "maxmemory-policy", "allkeys-lru");
    try {
      // Just above what the node uses: filler keys push every older key out (evicted).
      await node.config("SET", "maxmemory", String(used + 200_000));
      for (let batch = 0; batch < 40; batch += 1) {
        const pipeline = node.pipeline();
        for (let index = 0; index < 100; index += 1)
          pipeline.set(`filler:${batch}:${index}`, "x".repeat(1_000));
        await pipeline.exec();
        if (!(await node.exists(resource))) break;
      }
      expect(await node.exists(resource)).toBe(0);
      await seenWithin(resource, (row) => row?.quorum === 4 && row.nodes[4]!.value === null);
    } finally {
      await node.config("SET", "maxmemory", "0");
      await node.config("SET", "maxmemory-policy", "noeviction");
      await node.flushdb();
    }
  });
});

describe("gaps heal by themselves", () => {
  it("a killed subscriber connection: the node is relisted, and changes made meanwhile show", async () => {
    const before = tc.ctx.index.nodeStatus(1).listedAt!;
    const resources = Array.from({ length: 20 }, (_, index) => name(`during-kill-${index}`));
    const killedAtMs = performance.now();
    await nodes[1]!.client("KILL", "TYPE", "pubsub");
    // Taken on node-2 right after the kill, before the console resubscribes: no notification.
    await Promise.all(
      resources.map((resource) => nodes[1]!.set(resource, "1".repeat(40), "PX", 60_000)),
    );
    for (const resource of resources)
      await seenWithin(resource, (row) => row?.nodes[1]?.value === "1".repeat(40), 10_000);
    console.log(
      `killed subscriber: changes visible after ${(performance.now() - killedAtMs).toFixed(0)} ms`,
    );
    expect(tc.ctx.index.nodeStatus(1).listedAt!).toBeGreaterThan(before);
    await seenWithin(resources[0]!, () => modes()[1] === "watching", 10_000);
  });

  it("a node that restarts empty (SIGKILL): its keys leave the index, new ones arrive", async () => {
    const resource = name("before-crash");
    await Promise.all(ALL.map((i) => nodes[i]!.set(resource, "2".repeat(40), "PX", 60_000)));
    await seenWithin(resource, (row) => row?.quorum === 5);
    await masters.masters().restartEmpty(2);
    await seenWithin(resource, (row) => row?.quorum === 4 && row.nodes[2]!.value === null, 10_000);
    const after = name("after-crash");
    await seenWithin(after, () => modes()[2] === "watching", 10_000);
    await nodes[2]!.set(after, "3".repeat(40), "PX", 60_000);
    await seenWithin(after, (row) => row?.nodes[2]?.value === "3".repeat(40));
  });
});

describe("the load budget", () => {
  it("listing stays within CONSOLE_SCAN_BUDGET_PER_S, and viewers cost the masters nothing", async () => {
    const node = nodes[3]!;
    const keys = 30_000;
    for (let start = 0; start < keys; start += 5_000) {
      const pipeline = node.pipeline();
      for (let index = start; index < start + 5_000; index += 1)
        pipeline.hset(`budget-app:${index}`, "field", "value");
      await pipeline.exec();
    }
    await node.config("RESETSTAT");
    const budgetPerS = 10_000;
    const startedAt = performance.now();
    const probe = startTestConsole([masters.masters().urls[3]!], {
      scanBudgetPerS: budgetPerS,
      lockMatch: ["*"],
    });
    try {
      await probe.sync();
      const listedS = (performance.now() - startedAt) / 1000;
      const stats = await commandStats(node);
      // SCAN COUNT is at most a tenth of the budget: calls × COUNT is the keys it visited.
      const visited = stats.scan * Math.min(1_000, budgetPerS / 10);
      console.log(
        `listing ${keys} keys at ${budgetPerS}/s: ${listedS.toFixed(1)} s, ${stats.scan} SCAN calls, ${stats.total} commands`,
      );
      expect(visited).toBeGreaterThanOrEqual(keys);
      expect(visited).toBeLessThanOrEqual(budgetPerS * listedS + budgetPerS / 10);
      expect(listedS).toBeGreaterThanOrEqual((keys - budgetPerS / 10) / budgetPerS);
      // Idle, with 50 viewers paging: only the heartbeat PINGs reach the node.
      await node.config("RESETSTAT");
      const idleStartedAt = performance.now();
      while (performance.now() - idleStartedAt < 2_000) {
        await Promise.all(
          // Anonymous readers: a viewer with the break-glass admin token has its use recorded.
          Array.from({ length: 50 }, () =>
            call<LocksResponse>(locks.GET, "/api/locks?limit=100", { token: null }),
          ),
        );
        await sleep(20); // viewers poll; handlers alone would never let a timer run
      }
      const idleS = (performance.now() - idleStartedAt) / 1000;
      const idle = await commandStats(node);
      console.log(`idle with 50 viewers for ${idleS.toFixed(1)} s: ${JSON.stringify(idle)}`);
      const others = Object.entries(idle).filter(
        ([command]) => !/^(ping|info|config.*|total)$/.test(command),
      );
      expect(others.filter(([, calls]) => calls > 0)).toEqual([]);
      // Two consoles watch this node (the suite's and this one), each pinging twice a second at most.
      expect(idle.ping).toBeLessThanOrEqual(Math.ceil(idleS) * 4 + 4);
    } finally {
      await probe.close();
      await node.flushdb();
    }
  }, 60_000);
});

describe("a node without keyspace notifications", () => {
  it("is polled (said so, with the reason), or has them turned on when allowed", async () => {
    const [url] = solo.masters().urls as [string];
    const [node] = connect([url]) as [Redis];
    await node.config("SET", "notify-keyspace-events", "");
    const polled = startTestConsole([url], { scanBudgetPerS: 1_000 });
    try {
      await polled.sync();
      const status = polled.ctx.index.nodeStatus(0);
      expect(status.mode).toBe("polling");
      expect(status.reason).toMatch(/notify-keyspace-events is "".*CONSOLE_ENABLE_KEYSPACE_EVENTS/);
      const resource = `${polled.prefix}polled`;
      await node.set(resource, "5".repeat(40), "PX", 30_000);
      const firstAsOf = status.asOf!;
      // The next complete pass (paced: a pass starts at most once a second) brings it.
      await polled.sync();
      expect(polled.ctx.index.nodeStatus(0).asOf!).toBeGreaterThan(firstAsOf);
      expect(polled.ctx.index.row(resource, Date.now())?.state).toBe("held");
      expect(await notifyFlags(node)).toBe("");
    } finally {
      await polled.close();
    }
    const enabled = startTestConsole([url], { enableKeyspaceEvents: true });
    try {
      await enabled.sync();
      expect(enabled.ctx.index.nodeStatus(0)).toMatchObject({ mode: "watching", reason: null });
      const flags = await notifyFlags(node);
      for (const flag of "Kg$hzxe") expect(flags).toContain(flag);
    } finally {
      await enabled.close();
      await disconnect([node]);
    }
  }, 30_000);
});

const notifyFlags = async (node: Redis) =>
  ((await node.config("GET", "notify-keyspace-events")) as string[])[1];

/** Calls per command since the last CONFIG RESETSTAT, and their sum. */
async function commandStats(
  node: Redis,
): Promise<{ [command: string]: number; scan: number; ping: number; total: number }> {
  const calls = await callsPerCommand([node]);
  const total = Object.values(calls).reduce((sum, count) => sum + count, 0);
  return { ...calls, scan: calls.scan ?? 0, ping: calls.ping ?? 0, total };
}
