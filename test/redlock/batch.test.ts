import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Redlock, { ExecutionError, Lock } from "@redlock-console/redlock";
import { callsPerCommand } from "@/scripts/command-stats";
import { connect, disconnect, usePrivateMasters } from "../masters";

// Counts EVALSHA/EVAL calls per node and flushes script caches, so it uses masters of its own.
const { masters } = usePrivateMasters(5);
let clients: Redis[];
let redlock: Redlock;

const scriptCalls = async (client: Redis) => {
  const calls = await callsPerCommand([client]);
  return (calls.eval ?? 0) + (calls.evalsha ?? 0);
};

beforeAll(() => {
  clients = connect(masters().urls);
  redlock = new Redlock(clients, { retryCount: 0 });
});
afterAll(() => disconnect(clients));

describe("batching of one tick's commands per node", () => {
  it("sends 50 concurrent acquires as one script call per node", async () => {
    // Loads the scripts on every node first, so NOSCRIPT round trips do not count below. Acquire
    // returns at quorum; its attempt's stats settle once every node has answered.
    const warm = await Promise.all(
      [1, 2, 3].map((index) => redlock.acquire([`batch:warm:${index}`], 5_000)),
    );
    await Promise.all(warm.map((lock) => lock.attempts[0]));
    const before = await Promise.all(clients.map(scriptCalls));
    const locks = await Promise.all(
      Array.from({ length: 50 }, (_, index) => redlock.acquire([`batch:free:${index}`], 5_000)),
    );
    await Promise.all(locks.map((lock) => lock.attempts[0]));
    const after = await Promise.all(clients.map(scriptCalls));
    expect(new Set(locks.map((lock) => lock.value)).size).toBe(50);
    // One batch per node, plus the first command if it went out alone to an idle node.
    for (const [index, calls] of after.entries())
      expect(calls - before[index]!).toBeLessThanOrEqual(2);
  });

  it("gives each operation of a batch its own outcome", async () => {
    await redlock.acquire(["batch:held"], 5_000);
    const outcomes = await Promise.allSettled([
      redlock.acquire(["batch:other"], 5_000),
      redlock.acquire(["batch:held"], 5_000),
      redlock.acquire(["batch:another"], 5_000),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    expect(outcomes[1]).toMatchObject({ reason: expect.any(ExecutionError) });
  });

  it("keeps one operation's Redis error to itself: its batch neighbours succeed", async () => {
    const lock = await redlock.acquire(["batch:neighbour"], 5_000);
    await Promise.all(clients.map((client) => client.hset("batch:a-hash", "field", "1")));
    const wrongType = new Lock(redlock, ["batch:a-hash"], "f".repeat(40), [], Date.now() + 5_000);
    const [neighbour, failing] = await Promise.all([lock.release(), wrongType.release()]);
    expect((await neighbour.settled).releasedCount).toBe(5);
    expect((await failing.settled).failedCount).toBe(5);
    const votes = await failing.attempts[0]!;
    expect(votes.nodes.every((vote) => vote.error?.message.includes("WRONGTYPE"))).toBe(true);
  });

  it("falls back to EVAL once a node has lost its script cache", async () => {
    await Promise.all(clients.map((client) => client.script("FLUSH")));
    const locks = await Promise.all(
      Array.from({ length: 10 }, (_, index) => redlock.acquire([`batch:flushed:${index}`], 5_000)),
    );
    expect(locks).toHaveLength(10);
    // release() answers at the majority; `settled` waits for the other two nodes' replies too.
    const releases = await Promise.all(locks.map((lock) => lock.release()));
    await Promise.all(releases.map((release) => release.settled));
    expect(await Promise.all(clients.map((client) => client.exists("batch:flushed:0")))).toEqual([
      0, 0, 0, 0, 0,
    ]);
  });
});
