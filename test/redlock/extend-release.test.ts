import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Redlock, { type Client, ExecutionError, Lock } from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls, sleep } from "../masters";
import { lockClients } from "../lock-clients";

let clients: Redis[];
let lockers: Client[];
let redlock: Redlock;
const name = (label: string) => `test:extend:${randomUUID()}:${label}`;

beforeAll(async () => {
  clients = connect(sharedUrls());
  lockers = await lockClients(clients);
  redlock = new Redlock(lockers, { retryCount: 1, retryDelay: 20, retryJitter: 5 });
});
afterAll(() => disconnect(clients));

describe("extend", () => {
  it("resets the TTL on every node and returns a lock with the same value and a later expiration", async () => {
    const resource = name("extend");
    // Margins of a second or more: a loaded machine may stretch any of these steps.
    const lock = await redlock.acquire([resource], 1_000);
    await sleep(150);
    const longer = await lock.extend(4_000);
    expect(longer.value).toBe(lock.value);
    expect(longer.expiration).toBeGreaterThan(Date.now() + 3_000);
    await longer.attempts[0];
    for (const client of clients) expect(await client.pttl(resource)).toBeGreaterThan(3_000);
    await sleep(1_000); // past the original TTL: still ours
    for (const client of clients) expect(await client.get(resource)).toBe(lock.value);
    await longer.release();
  });

  it("refuses a lock that expired, and one whose keys another holder took", async () => {
    const resource = name("lost");
    const lock = await redlock.acquire([resource], 100);
    await sleep(150);
    await expect(lock.extend(1_000)).rejects.toThrow("Cannot extend an already-expired lock.");
    const stolen = await redlock.acquire([resource], 5_000);
    const patient = new Redlock(clients, { retryCount: 5, retryDelay: 2_000, retryJitter: 0 });
    const stale = new Lock(patient, [resource], lock.value, [], Date.now() + 10_000);
    const failure = await stale.extend(1_000).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ExecutionError);
    // A majority said "not held": no pointless retries, one attempt (a count, at any speed).
    expect((failure as ExecutionError).attempts).toHaveLength(1);
    for (const client of clients) expect(await client.get(resource)).toBe(stolen.value);
    await stolen.release();
  });

  it("does not retry an extension that Redis refuses outright (a key of another type)", async () => {
    const resource = name("wrongtype");
    await Promise.all(clients.map((client) => client.hset(resource, "holder", "1")));
    const patient = new Redlock(lockers, { retryCount: 5, retryDelay: 2_000, retryJitter: 0 });
    const handle = new Lock(patient, [resource], "f".repeat(40), [], Date.now() + 10_000);
    const failure = await handle.extend(1_000).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ExecutionError);
    expect((failure as ExecutionError).attempts).toHaveLength(1); // refused outright: no retry
    await Promise.all(clients.map((client) => client.del(resource)));
  });
});

describe("release", () => {
  it("deletes the keys on every node and reports how many", async () => {
    const resource = name("release");
    const lock = await redlock.acquire([resource], 5_000);
    await lock.attempts[0];
    const result = await lock.release();
    // Resolved once a majority replied, with the counts known then; `settled` has every node's.
    expect(result.releasedCount).toBeGreaterThanOrEqual(3);
    expect(result).toMatchObject({ failedCount: 0, alreadyReleased: false });
    expect(await result.settled).toEqual({
      releasedCount: 5,
      failedCount: 0,
      alreadyReleased: false,
    });
    for (const client of clients) expect(await client.exists(resource)).toBe(0);
  });

  it("resolves on the nodes' answers, not a node timeout, and says so for an expired or already-released lock", async () => {
    const resource = name("expired");
    // A node timeout far above what answering takes on any machine: a release that waited it out
    // would take 5 s at least.
    const nodeTimeoutMs = 5_000;
    const patient = new Redlock(lockers, { nodeTimeout: nodeTimeoutMs });
    const lock = await patient.acquire([resource], 50);
    await sleep(80);
    const startMs = Date.now();
    expect(await lock.release()).toMatchObject({ releasedCount: 0, alreadyReleased: true });
    expect(await lock.release()).toMatchObject({ releasedCount: 0, alreadyReleased: true });
    expect(Date.now() - startMs).toBeLessThan(nodeTimeoutMs);
  });

  it("goes to every node, including ones the lock never reached, and never deletes another value", async () => {
    const resource = name("everywhere");
    await clients[4]!.set(resource, "foreign", "PX", 5_000);
    const lock = await redlock.acquire([resource], 5_000);
    await lock.attempts[0];
    // A node that granted late (simulated by writing our value after the fact) is released too.
    await clients[4]!.set(resource, lock.value, "PX", 5_000);
    const result = await lock.release();
    expect((await result.settled).releasedCount).toBe(5);
    await clients[0]!.set(resource, "foreign", "PX", 5_000);
    await lock.release();
    expect(await clients[0]!.get(resource)).toBe("foreign");
  });
});

describe("a lock known only by its value (lockByValue)", () => {
  it("extends and releases the lock that value holds, and refuses a value that holds nothing", async () => {
    const resource = `by-value:${Date.now()}`;
    const lock = await redlock.acquire([resource], 2_000);
    const handle = redlock.lockByValue([resource], lock.value);
    expect(handle.expiration).toBe(Number.POSITIVE_INFINITY);
    const extended = await handle.extend(5_000);
    expect(extended.expiration).toBeLessThan(Date.now() + 5_000);
    await extended.attempts[0]; // every node has answered
    for (const client of clients) expect(await client.pttl(resource)).toBeGreaterThan(4_000);

    await expect(
      redlock.lockByValue([resource], "0".repeat(40)).extend(1_000),
    ).rejects.toBeInstanceOf(ExecutionError);
    const released = await redlock.lockByValue([resource], lock.value).release();
    expect(released.alreadyReleased).toBe(false);
    await released.settled;
    for (const client of clients) expect(await client.exists(resource)).toBe(0);
    expect(() => redlock.lockByValue([resource], "")).toThrow(TypeError);
  });
});
