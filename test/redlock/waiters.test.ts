/**
 * Waiters: a contender that retries lists itself at `redlock:waiters:<resource>` on the first
 * majority of nodes (the ones releases wake it from: handoff.ts, wakeNodes) while it waits, and is
 * gone once it acquires, gives up, is aborted or disappears (its entry expires with its retry
 * window). An acquire that needs no retry writes nothing.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Redlock, {
  type Client,
  ExecutionError,
  waitersKey,
  type WaiterInfo,
} from "@redlock-console/redlock";
import { lockClients } from "../lock-clients";
import { connect, disconnect, sharedUrls, sleep, wakeIndexes } from "../masters";

let clients: Redis[];
/** All five up: the first three nodes in address order list the waits. */
let listingNodes: number[];
let lockers: Client[];
let holder: Redlock;
const name = (label: string) => `test:waiters:${randomUUID()}:${label}`;

beforeAll(async () => {
  clients = connect(sharedUrls());
  listingNodes = wakeIndexes(clients);
  lockers = await lockClients(clients);
  holder = new Redlock(lockers, { retryCount: 0, owner: { service: "holder" } });
});
afterAll(() => disconnect(clients));

const waitersOn = async (resource: string, observer = holder): Promise<readonly WaiterInfo[]> =>
  (await observer.inspect([resource]))[0]!.waiters;

/** Polls until `check` holds (bounded), so the test does not depend on the exact retry timing. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > deadline) return value;
    await sleep(20);
  }
}

const keyCount = async (resource: string) =>
  (await Promise.all(clients.map((client) => client.exists(waitersKey(resource))))).reduce(
    (sum, count) => sum + count,
    0,
  );

/** The nodes (by index) that hold the resource's waiters set. */
const listedOn = async (resource: string) =>
  (await Promise.all(clients.map((client) => client.exists(waitersKey(resource))))).flatMap(
    (exists, index) => (exists ? [index] : []),
  );

describe("waiters", () => {
  it("lists a retrying contender with its labels and since, and drops it once it acquires", async () => {
    const resource = name("acquires");
    const held = await holder.acquire([resource], 10_000);
    const contender = new Redlock(lockers, {
      retryCount: 100,
      retryDelay: 30,
      retryJitter: 10,
      owner: { service: "contender" },
    });
    const startMs = Date.now();
    const pending = contender.acquire([resource], 5_000);
    const [waiter] = await eventually(
      () => waitersOn(resource),
      (waiters) => waiters.length === 1,
    );
    expect(waiter).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(waiter!.labels).toMatchObject({ service: "contender", pid: String(process.pid) });
    expect(waiter!.since).toBeGreaterThanOrEqual(startMs);
    expect(waiter!.since).toBeLessThanOrEqual(Date.now());
    expect(waiter!.expiresAt).toBeGreaterThan(Date.now());
    // The entry also says when the first attempt failed (the wait as others see it), after `since`.
    const [member] = await clients[listingNodes[0]!]!.zrange(waitersKey(resource), 0, -1);
    const { firstFailedAt, since } = JSON.parse(member!) as {
      firstFailedAt: number;
      since: number;
    };
    expect(firstFailedAt).toBeGreaterThanOrEqual(since);
    expect(firstFailedAt).toBeLessThanOrEqual(Date.now());
    expect(await listedOn(resource)).toEqual(listingNodes);
    // The holder still shows as the owner; the waiter does not take its place.
    expect((await holder.inspect([resource]))[0]!.owner?.labels.service).toBe("holder");
    await held.release();
    const lock = await pending;
    // Same connections as the contender: its removal went out before this read.
    expect(await waitersOn(resource, contender)).toEqual([]);
    await eventually(
      () => keyCount(resource),
      (count) => count === 0,
    );
    expect(await keyCount(resource)).toBe(0);
    await lock.release();
  });

  it("drops a contender that gives up, and keeps its entry no longer than its retry window", async () => {
    const resource = name("gives-up");
    const held = await holder.acquire([resource], 10_000);
    // Retry window: 8 retries × (40 ms wait + 2 × 100 ms node bound) = 1,920 ms at most.
    const contender = new Redlock(lockers, {
      retryCount: 8,
      retryDelay: 40,
      retryJitter: 0,
      nodeTimeout: 100,
    });
    const pending = contender.acquire([resource], 5_000);
    const outcome = pending.catch((error: unknown) => error);
    const [waiter] = await eventually(
      () => waitersOn(resource),
      (waiters) => waiters.length === 1,
    );
    expect(waiter!.expiresAt - waiter!.since).toBeLessThanOrEqual(8 * 240 + 100);
    expect(await listedOn(resource)).toEqual(listingNodes);
    for (const index of listingNodes) {
      const ttlMs = await clients[index]!.pttl(waitersKey(resource));
      expect(ttlMs).toBeGreaterThan(0);
      expect(ttlMs).toBeLessThanOrEqual(8 * 240);
    }
    expect(await outcome).toBeInstanceOf(ExecutionError);
    expect(await waitersOn(resource, contender)).toEqual([]);
    await held.release();
  });

  it("drops a contender that is aborted", async () => {
    const resource = name("aborted");
    const held = await holder.acquire([resource], 10_000);
    const contender = new Redlock(lockers, { retryCount: -1, retryDelay: 30, retryJitter: 10 });
    const controller = new AbortController();
    const outcome = contender
      .acquire([resource], 5_000, { signal: controller.signal })
      .catch((error: unknown) => error);
    await eventually(
      () => waitersOn(resource),
      (waiters) => waiters.length === 1,
    );
    controller.abort();
    expect(await outcome).toMatchObject({ name: "AbortError" });
    expect(await waitersOn(resource, contender)).toEqual([]);
    expect(await keyCount(resource)).toBe(0);
    await held.release();
  });

  it("expires the entry of a contender that vanished without removing it", async () => {
    const resource = name("vanished");
    const held = await holder.acquire([resource], 10_000);
    const ownClients = connect(sharedUrls());
    // 3 retries × (200 ms wait + 2 × 100 ms node bound): the entry lasts at most 1,200 ms. The
    // waits keep the contender waiting ≥ 600 ms after it registers, so its connections drop while it
    // still waits (with 20 ms waits it could give up and remove its entry before a busy test
    // process saw the entry and cut the connections).
    const contender = new Redlock(ownClients, {
      retryCount: 3,
      retryDelay: 200,
      retryJitter: 0,
      nodeTimeout: 100,
    });
    const outcome = contender.acquire([resource], 5_000).catch((error: unknown) => error);
    await eventually(
      () => keyCount(resource),
      (count) => count === listingNodes.length,
    );
    // Its connections drop at once: the removal can never be sent.
    ownClients.forEach((client) => client.disconnect());
    expect(await outcome).toBeInstanceOf(ExecutionError);
    expect(await listedOn(resource)).toEqual(listingNodes);
    // The outcome came ≥ 600 ms after the registration, so the entry is gone 600 ms (+100) later.
    await sleep(700);
    expect(await keyCount(resource)).toBe(0);
    expect(await waitersOn(resource)).toEqual([]);
    await held.release();
  });

  it("writes nothing for an acquire that needs no retry, with retryCount 0, or with waiters: false", async () => {
    const resource = name("quiet");
    const free = await new Redlock(lockers, { retryCount: 5 }).acquire([resource], 5_000);
    await free.attempts[0];
    expect(await keyCount(resource)).toBe(0);
    const silent = [
      new Redlock(lockers, { retryCount: 0 }),
      new Redlock(lockers, { retryCount: 6, retryDelay: 30, retryJitter: 0, waiters: false }),
    ];
    const outcomes = silent.map((contender) =>
      contender.acquire([resource], 5_000).catch((error: unknown) => error),
    );
    // Sampled while the second contender retries (~180 ms): never an entry.
    for (let sample = 0; sample < 6; sample += 1) {
      expect(await keyCount(resource)).toBe(0);
      await sleep(25);
    }
    for (const outcome of outcomes) expect(await outcome).toBeInstanceOf(ExecutionError);
    // Per call too.
    const perCall = new Redlock(lockers, { retryCount: 4, retryDelay: 30, retryJitter: 0 });
    const pending = perCall
      .acquire([resource], 5_000, { waiters: false })
      .catch((error: unknown) => error);
    for (let sample = 0; sample < 4; sample += 1) {
      expect(await keyCount(resource)).toBe(0);
      await sleep(25);
    }
    expect(await pending).toBeInstanceOf(ExecutionError);
    await free.release();
  });
});
