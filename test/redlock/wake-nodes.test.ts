/**
 * Where the handoff spends its Redis commands: waits are listed, and releases wake them, on the
 * first majority, in address order, of the nodes that can take commands (handoff.ts, wakeNodes),
 * not on every node, whatever order each instance lists them in; a paused node moves that majority
 * on and the handoff still wakes at once. A lost attempt sends
 * its clean-up only to the nodes that may hold its keys, not to those that refused after the
 * attempt was decided. Counted with INFO commandstats on masters of this file's own.
 */
import { performance } from "node:perf_hooks";
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import Redlock, { type Client, type Lock, waitersKey } from "@redlock-console/redlock";
import { lockClients } from "../lock-clients";
import { commandCalls, connect, disconnect, sleep, usePrivateMasters } from "../masters";

const { masters } = usePrivateMasters(5);
/** The masters' URLs in address order: node i below is the i-th that wakeNodes considers. */
let urls: string[];
let admins: Redis[];
/** The library's clients of this project's kind (ioredis or node-redis), to the same masters. */
let lockers: Client[];
let paused: number[] = [];
const NODE_TIMEOUT_MS = 150;

beforeAll(async () => {
  urls = [...masters().urls].sort();
  admins = connect(urls);
  lockers = await lockClients(admins);
});
beforeEach(async () => {
  await Promise.all(admins.map((admin) => admin.config("RESETSTAT")));
});
/** SIGSTOP (SIGCONT) node i of `urls`. */
const pause = (node: number) => {
  const index = masters().urls.indexOf(urls[node]!);
  masters().pause(index);
  paused.push(index);
};
const resumeAll = () => {
  for (const index of paused) masters().resume(index);
  paused = [];
};
afterEach(async () => {
  resumeAll();
  await sleep(50); // let stalled replies and their clean-up land before the next test
});
afterAll(() => disconnect(admins));

type Settings = ConstructorParameters<typeof Redlock>[1];
/**
 * A holder or a contender that never waits, on the project's kind of client. No session: its
 * heartbeat is a background SET, which the clean-up test below would count.
 */
const shared = (settings: Settings) =>
  new Redlock(lockers, { nodeTimeout: NODE_TIMEOUT_MS, session: false, ...settings });
/**
 * A waiting contender on ioredis connections of its own, as another process would have (quit
 * closes them and its wake subscribers); only ioredis clients subscribe to wake channels.
 */
const own = (settings: Settings, nodeUrls = urls) =>
  new Redlock(connect(nodeUrls), { nodeTimeout: NODE_TIMEOUT_MS, ...settings });

/** Calls of one command on each node since the test began (INFO commandstats). */
const callsOn = (indexes: readonly number[], command: string) =>
  Promise.all(indexes.map((index) => commandCalls(admins[index]!, command)));

const listedOn = async (resource: string, indexes: readonly number[]) =>
  (await Promise.all(indexes.map((index) => admins[index]!.exists(waitersKey(resource))))).flatMap(
    (exists, at) => (exists ? [indexes[at]!] : []),
  );

/**
 * Until every one of `nodes` lists the wait with its wake channel (it is listed without one, then
 * again with it once its instance subscribed): a release wakes it only then.
 */
const listedWithChannel = (resource: string, nodes: readonly number[]) =>
  vi.waitFor(async () => {
    for (const node of nodes) {
      const [member] = await admins[node]!.zrange(waitersKey(resource), 0, -1);
      expect(member).toContain('"wake"');
    }
  });

/** Releases `lock` and waits for the contender's acquire: its lock, and how long after the release. */
async function handedOver(lock: Lock, pending: Promise<Lock>) {
  const releasedMono = performance.now();
  await lock.release();
  const next = await pending;
  return { next, afterMs: performance.now() - releasedMono };
}

/** PUBLISH calls per node, waited for: the last wake node may publish after the wait woke on two. */
const publishesReach = (nodes: readonly number[], counts: readonly number[]) =>
  vi.waitFor(async () => expect(await callsOn(nodes, "publish")).toEqual(counts));

describe("the nodes that list and wake waits", () => {
  it("lists the wait and wakes it from the first three nodes in address order only; the other two only delete", async () => {
    const resource = `test:wake-nodes:${randomUUID()}`;
    const holder = shared({ retryCount: 0 });
    const contender = own({ retryCount: 3, retryDelay: 10_000, retryJitter: 0 });
    const lock = await holder.acquire([resource], 30_000);
    const pending = contender.acquire([resource], 30_000);
    await listedWithChannel(resource, [0, 1, 2]);
    expect(await listedOn(resource, [0, 1, 2, 3, 4])).toEqual([0, 1, 2]);
    const { next, afterMs } = await handedOver(lock, pending);
    // Without the wake this takes 10 s (retryDelay): half of it is the widest a slow machine needs.
    expect(afterMs).toBeLessThan(5_000);
    await next.release();
    await contender.quit();
    await publishesReach([0, 1, 2, 3, 4], [1, 1, 1, 0, 0]);
    // The last two nodes never saw the waiters set: no listing, no lookup, no removal.
    expect(await callsOn([3, 4], "zadd")).toEqual([0, 0]);
    expect(await callsOn([3, 4], "zrangebyscore")).toEqual([0, 0]);
    expect(await callsOn([3, 4], "zrem")).toEqual([0, 0]);
    expect(await listedOn(resource, [0, 1, 2, 3, 4])).toEqual([]);
  });

  it("picks the same three for an instance that lists the nodes in another order", async () => {
    const resource = `test:wake-nodes-order:${randomUUID()}`;
    const holder = shared({ retryCount: 0 });
    // Listed in reverse (as another service's configuration might): the wake nodes do not change.
    const contender = own(
      { retryCount: 3, retryDelay: 10_000, retryJitter: 0 },
      [...urls].reverse(),
    );
    const lock = await holder.acquire([resource], 30_000);
    const pending = contender.acquire([resource], 30_000);
    await listedWithChannel(resource, [0, 1, 2]);
    expect(await listedOn(resource, [0, 1, 2, 3, 4])).toEqual([0, 1, 2]);
    const { next, afterMs } = await handedOver(lock, pending);
    expect(afterMs).toBeLessThan(5_000); // half the retryDelay
    await next.release();
    await publishesReach([0, 1, 2, 3, 4], [1, 1, 1, 0, 0]);
    await contender.quit();
  });

  it("moves on past a paused node: the wait is listed on the next three and still woken, not slept", async () => {
    const resource = `test:wake-nodes-paused:${randomUUID()}`;
    const holder = shared({ retryCount: 0 });
    const contenderClients = connect(urls);
    await Promise.all(contenderClients.map((client) => client.ping()));
    const contender = new Redlock(contenderClients, {
      nodeTimeout: NODE_TIMEOUT_MS,
      retryCount: 3,
      retryDelay: 10_000,
      retryJitter: 0,
    });
    pause(0);
    // Node 0 went down before this contention: both instances have timed out on it (a command
    // overdue there), so neither sends it more and both count nodes 1–3 as the first majority.
    // (A wait whose first attempt meets the paused node is listed once that attempt's clean-up
    // has waited nodeTimeout for node 0, which is overdue by then: also nodes 1–3.)
    for (const instance of [holder, contender]) {
      const warmUp = await instance.acquire([`${resource}:warm-up`], 30_000);
      await warmUp.attempts[0]; // every node answered or timed out
      await warmUp.release();
    }
    expect(holder.nodeStates()[0]!.status).toBe("suspect");
    expect(contender.nodeStates()[0]!.status).toBe("suspect");
    const lock = await holder.acquire([resource], 30_000);
    const pending = contender.acquire([resource], 30_000);
    await listedWithChannel(resource, [1, 2, 3]);
    expect(await listedOn(resource, [1, 2, 3, 4])).toEqual([1, 2, 3]);
    const { next, afterMs } = await handedOver(lock, pending);
    expect(afterMs).toBeLessThan(5_000); // half the retryDelay
    await next.release();
    await publishesReach([1, 2, 3, 4], [1, 1, 1, 0]);
    // QUIT would wait on the paused node.
    resumeAll();
    await contender.quit();
  });

  it("wakes the wait from two of the three when the third is paused after it was listed", async () => {
    const resource = `test:wake-nodes-two:${randomUUID()}`;
    const holder = shared({ retryCount: 0 });
    const contender = own({ retryCount: 3, retryDelay: 10_000, retryJitter: 0 });
    const lock = await holder.acquire([resource], 30_000);
    await lock.attempts[0];
    const pending = contender.acquire([resource], 30_000);
    await listedWithChannel(resource, [0, 1, 2]);
    // Neither instance has seen node 2 go down: the release is sent there and hangs, so only
    // nodes 0 and 1 publish.
    pause(2);
    const { next, afterMs } = await handedOver(lock, pending);
    // Woken by two, not its retry 10 s away; it holds nodes 0, 1, 3 and 4.
    expect(afterMs).toBeLessThan(5_000); // half the retryDelay
    await publishesReach([0, 1], [1, 1]);
    resumeAll();
    await next.release();
    await contender.quit();
  });

  it("lists a waiting contender on the next node once a node it was listed on goes down", async () => {
    const resource = `test:wake-nodes-moved:${randomUUID()}`;
    const holder = shared({ retryCount: 0 });
    // Retries every 4 s: the second attempt must come during the test, and a wake must be told
    // from it (a woken acquire comes well inside half of it).
    const retryDelayMs = 4_000;
    const contender = own({ retryCount: 5, retryDelay: retryDelayMs, retryJitter: 0 });
    const lock = await holder.acquire([resource], 30_000);
    const pending = contender.acquire([resource], 30_000);
    await vi.waitFor(async () => expect(await listedOn(resource, [0, 1, 2])).toEqual([0, 1, 2]));
    pause(0);
    // The holder learns node 0 is down (a command of its own overdue there): it wakes from 1–3.
    const probe = await holder.acquire([`${resource}:probe`], 30_000);
    await probe.attempts[0];
    await probe.release();
    // The contender's next failed attempt (4 s after its first) times out on node 0 and lists it
    // on node 3 too, so that release reaches it on three nodes.
    await vi.waitFor(
      async () => expect(await listedOn(resource, [1, 2, 3, 4])).toEqual([1, 2, 3]),
      { timeout: 20_000, interval: 50 },
    );
    await listedWithChannel(resource, [1, 2, 3]);
    const { next, afterMs } = await handedOver(lock, pending);
    // Woken, not its next retry 4 s away.
    expect(afterMs).toBeLessThan(retryDelayMs / 2);
    await next.release();
    resumeAll();
    await contender.quit();
  });
});

describe("a lost attempt's clean-up", () => {
  it("goes to no node that refused, even to those that refused after the attempt was decided", async () => {
    const resource = `test:lost-cleanup:${randomUUID()}`;
    const holder = shared({ retryCount: 0 });
    const lock = await holder.acquire([resource], 30_000);
    await lock.attempts[0];
    await Promise.all(admins.map((admin) => admin.config("RESETSTAT")));
    const contender = shared({ retryCount: 0, waiters: false, nodeTimeout: 2_000 });
    // Nodes 3 and 4 answer late: the attempt is lost at the third refusal, before they refuse.
    pause(3);
    pause(4);
    const outcome = contender.acquire([resource], 30_000).catch((error: unknown) => error);
    await sleep(200);
    resumeAll();
    expect(await outcome).toBeInstanceOf(Error);
    await sleep(100); // a clean-up chained after their replies would be out by now
    expect(await callsOn([0, 1, 2, 3, 4], "set")).toEqual([1, 1, 1, 1, 1]);
    expect(await callsOn([0, 1, 2, 3, 4], "evalsha")).toEqual([0, 0, 0, 0, 0]);
    expect(await callsOn([0, 1, 2, 3, 4], "eval")).toEqual([0, 0, 0, 0, 0]);
    await lock.release();
  });

  it("still releases the nodes that granted a lost attempt", async () => {
    const resource = `test:lost-partial:${randomUUID()}`;
    // Held by someone else on nodes 0–2 only: the attempt wins nodes 3 and 4 and loses.
    await Promise.all(
      [0, 1, 2].map((index) => admins[index]!.set(resource, "other", "PX", 30_000)),
    );
    const contender = shared({ retryCount: 0, waiters: false });
    await expect(contender.acquire([resource], 30_000)).rejects.toThrow();
    expect(await Promise.all(admins.map((admin) => admin.get(resource)))).toEqual([
      "other",
      "other",
      "other",
      null,
      null,
    ]);
    await Promise.all(admins.map((admin) => admin.del(resource)));
  });
});
