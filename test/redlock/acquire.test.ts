import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Redlock, {
  type Client,
  ExecutionError,
  ResourceLockedError,
  type OperationEvent,
} from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls } from "../masters";
import { lockClients } from "../lock-clients";

let clients: Redis[];
let lockers: Client[];
let redlock: Redlock;
const name = (label: string) => `test:acquire:${randomUUID()}:${label}`;
const valuesOn = (resource: string) => Promise.all(clients.map((client) => client.get(resource)));

beforeAll(async () => {
  clients = connect(sharedUrls());
  lockers = await lockClients(clients);
  redlock = new Redlock(lockers, { retryCount: 2, retryDelay: 50, retryJitter: 20 });
});
afterAll(() => disconnect(clients));

describe("acquire", () => {
  it("sets the same value (token and owner) with the TTL on every node, and returns positive validity", async () => {
    const resource = name("basic");
    // A long TTL, so a loaded machine's delays stay far inside the margins below.
    const lock = await redlock.acquire([resource], 60_000);
    expect(lock.value).toMatch(/^rl1:[0-9a-f]{40}:\{/);
    await lock.attempts[0]; // acquire returns at quorum; the stats settle once every node answered
    expect(await valuesOn(resource)).toEqual(Array(5).fill(lock.value));
    const ttls = await Promise.all(clients.map((client) => client.pttl(resource)));
    for (const ttl of ttls) expect(ttl).toBeGreaterThan(55_000);
    expect(lock.validityMs).toBeGreaterThan(0);
    expect(lock.validityMs).toBeLessThanOrEqual(60_000 - 602); // drift: 1% of TTL + 2 ms
    await lock.release();
  });

  it("lets exactly one of two contenders win, and the loser's error lists every node's vote", async () => {
    const resource = name("contended");
    const results = await Promise.allSettled([
      redlock.acquire([resource], 5_000, { retryCount: 0 }),
      redlock.acquire([resource], 5_000, { retryCount: 0 }),
    ]);
    const winners = results.filter((result) => result.status === "fulfilled");
    const losers = results.filter((result) => result.status === "rejected");
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    const error = (losers[0] as PromiseRejectedResult).reason as ExecutionError;
    expect(error).toBeInstanceOf(ExecutionError);
    expect(error.message).toBe(
      "The operation was unable to achieve a quorum during its retry window.",
    );
    const stats = await error.attempts[0]!;
    expect(stats.membershipSize).toBe(5);
    expect(stats.quorumSize).toBe(3);
    expect(stats.votesFor.size + stats.votesAgainst.size).toBe(5);
    expect(stats.votesAgainst.size).toBeGreaterThanOrEqual(3);
    expect(stats.nodes.map((node) => node.vote)).toHaveLength(5);
    // The winner's value stays untouched on every node: the loser cleaned up only its own keys.
    const winner = (winners[0] as PromiseFulfilledResult<Awaited<ReturnType<Redlock["acquire"]>>>)
      .value;
    expect(await valuesOn(resource)).toEqual(Array(5).fill(winner.value));
    await winner.release();
  });

  it("retries until the holder releases, then wins", async () => {
    const resource = name("retry");
    const first = await redlock.acquire([resource], 5_000);
    setTimeout(() => void first.release(), 120);
    const second = await redlock.acquire([resource], 5_000, {
      retryCount: 20,
      retryDelay: 40,
      retryJitter: 10,
    });
    expect(second.attempts.length).toBeGreaterThan(1);
    await second.release();
  });

  it("is all-or-nothing across resources: one held resource refuses the whole set and sets none", async () => {
    const [free, held] = [name("free"), name("held")];
    const holder = await redlock.acquire([held], 5_000);
    await expect(redlock.acquire([free, held], 5_000, { retryCount: 0 })).rejects.toBeInstanceOf(
      ExecutionError,
    );
    expect(await valuesOn(free)).toEqual(Array(5).fill(null));
    const both = await redlock.acquire([free, `${held}:other`], 5_000);
    await both.attempts[0];
    expect(await valuesOn(free)).toEqual(Array(5).fill(both.value));
    expect(await valuesOn(`${held}:other`)).toEqual(Array(5).fill(both.value));
    await Promise.all([both.release(), holder.release()]);
  });

  it("round-trips resource names with spaces, unicode, glob characters and 10 KB length", async () => {
    const names = [
      `${name("x")} with spaces`,
      `${name("x")}:ünïcødé:锁:🔒`,
      `${name("x")}:*?[]{}\\`,
      `${name("x")}:${"L".repeat(10_000)}`,
      `${name("x")}:\n\t\r"'`,
    ];
    const lock = await redlock.acquire(names, 5_000);
    await lock.attempts[0];
    for (const resource of names)
      expect(await valuesOn(resource)).toEqual(Array(5).fill(lock.value));
    const result = await lock.release();
    expect((await result.settled).releasedCount).toBe(5);
    for (const resource of names) expect(await valuesOn(resource)).toEqual(Array(5).fill(null));
  });

  it("emits one operation event with total and per-node latency and votes", async () => {
    const events: OperationEvent[] = [];
    const listener = (event: OperationEvent) => events.push(event);
    redlock.on("operation", listener);
    const resource = name("events");
    const lock = await redlock.acquire([resource], 5_000);
    await lock.release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    redlock.off("operation", listener);
    const acquired = events.find(
      (event) => event.operation === "acquire" && event.resources[0] === resource,
    )!;
    expect(acquired).toMatchObject({ outcome: "success", attempts: 1 });
    expect(acquired.latencyMs).toBeGreaterThan(0);
    expect(acquired.nodes.map((node) => node.vote)).toEqual(Array(5).fill("for"));
    for (const node of acquired.nodes) expect(node.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(
      events.some((event) => event.operation === "release" && event.outcome === "success"),
    ).toBe(true);
  });

  it("refuses with a ResourceLockedError vote from a node where the resource is held", async () => {
    const resource = name("votes");
    await clients[0]!.set(resource, "someone-else", "PX", 5_000);
    const lock = await redlock.acquire([resource], 5_000);
    const stats = await lock.attempts[0]!;
    expect(stats.votesAgainst.get(lockers[0]!)).toBeInstanceOf(ResourceLockedError);
    expect(await clients[0]!.get(resource)).toBe("someone-else");
    await lock.release();
    expect(await clients[0]!.get(resource)).toBe("someone-else"); // release never deletes another holder's key
  });
});

describe("argument checks", () => {
  it.each([
    ["a fractional TTL", ["r"], 10.5, "Duration must be an integer value in milliseconds."],
    ["a zero TTL", ["r"], 0, "Duration must be a positive number of milliseconds, got 0."],
    ["a negative TTL", ["r"], -5, "Duration must be a positive number of milliseconds, got -5."],
    ["a NaN TTL", ["r"], Number.NaN, "Duration must be an integer value in milliseconds."],
    [
      "no resources",
      [],
      1_000,
      "At least one resource is required: pass a non-empty array of resource names.",
    ],
    ["an empty resource name", [""], 1_000, "Every resource must be a non-empty string."],
    ["a repeated resource", ["a", "a"], 1_000, "Resources must not repeat."],
  ])("rejects %s with a clear message", async (_label, resources, ttl, message) => {
    await expect(redlock.acquire(resources as string[], ttl as number)).rejects.toThrow(message);
  });

  it("refuses to be built without clients, or with a nonsensical setting", () => {
    expect(() => new Redlock([])).toThrow(
      "Redlock must be instantiated with at least one redis client.",
    );
    expect(() => new Redlock(lockers, { retryCount: 1.5 })).toThrow(
      'Setting "retryCount" must be an integer >= -1',
    );
    expect(() => new Redlock(lockers, { nodeTimeout: 0 })).toThrow(
      'Setting "nodeTimeout" must be a positive number',
    );
  });
});
