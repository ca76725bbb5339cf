// test-group: timed
import { performance } from "node:perf_hooks";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import Redlock, {
  type Client,
  ExecutionError,
  NodeTimeoutError,
  NodeUnavailableError,
} from "@redlock-console/redlock";
import { attemptCalls, connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { clientKind, lockClients } from "../lock-clients";

// These tests pause real redis-server processes (SIGSTOP), so they use masters of their own.
const { masters } = usePrivateMasters(5);
let clients: Redis[];
let lockers: Client[];
let paused: number[] = [];
const NODE_TIMEOUT_MS = 150;

const pause = (...indexes: number[]) => {
  for (const index of indexes) masters().pause(index);
  paused.push(...indexes);
};
const resumeAll = () => {
  for (const index of paused) masters().resume(index);
  paused = [];
};
const keysOn = (resource: string, indexes: number[]) =>
  Promise.all(indexes.map((index) => clients[index]!.exists(resource)));
const pendingCommands = (client: Redis) =>
  (client as unknown as { commandQueue: { length: number } }).commandQueue.length;

beforeAll(async () => {
  clients = connect(masters().urls);
  lockers = await lockClients(clients);
});
afterEach(async () => {
  resumeAll();
  await sleep(50); // let stalled replies and their clean-up land before the next test
});
afterAll(() => disconnect(clients));

describe("with nodes paused (SIGSTOP)", () => {
  it("acquires with 2 of 5 nodes paused, never waiting for them past their nodeTimeout", async () => {
    const redlock = new Redlock(lockers, { nodeTimeout: NODE_TIMEOUT_MS, retryCount: 0 });
    pause(0, 1);
    const startMono = performance.now();
    const lock = await redlock.acquire(["two-paused"], 2_000);
    // Waiting for the paused pair would last until they resume (after the test); ten nodeTimeouts
    // are the widest a slow machine needs. How close to one nodeTimeout it comes is the bench's
    // target (bench/targets/library.ts).
    expect(performance.now() - startMono).toBeLessThan(10 * NODE_TIMEOUT_MS);
    expect(lock.validityMs).toBeGreaterThan(0);
    expect(await keysOn("two-paused", [2, 3, 4])).toEqual([1, 1, 1]);
    const stats = await lock.attempts[0]!;
    const timedOut = stats.votesAgainst.get(lockers[0]!);
    expect(timedOut).toBeInstanceOf(NodeTimeoutError);
    // The error names its node in fields, not only in its message.
    expect(timedOut).toMatchObject({
      address: redlock.nodeStates()[0]!.address,
      timeoutMs: NODE_TIMEOUT_MS,
    });
    await lock.release();
  });

  it("fails with 3 of 5 paused, its retries skipping the overdue nodes unsent, and leaves no key on the live nodes", async () => {
    const redlock = new Redlock(lockers, {
      nodeTimeout: NODE_TIMEOUT_MS,
      retryCount: 3,
      retryDelay: 20,
      retryJitter: 5,
    });
    pause(0, 1, 2);
    const failure = await redlock.acquire(["three-paused"], 2_000).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ExecutionError);
    // One nodeTimeout for the first attempt; later attempts skip the overdue nodes at once, without
    // sending (a count, at any speed). The time it all takes is the bench's target.
    const attempts = await Promise.all((failure as ExecutionError).attempts);
    expect(attempts).toHaveLength(4);
    for (const attempt of attempts.slice(1))
      for (const index of [0, 1, 2])
        expect(attempt.votesAgainst.get(lockers[index]!)).toBeInstanceOf(NodeUnavailableError);
    const skipped = attempts[1]!.votesAgainst.get(lockers[0]!);
    expect((skipped as NodeUnavailableError).address).toBe(redlock.nodeStates()[0]!.address);
    expect(await keysOn("three-paused", [3, 4])).toEqual([0, 0]);
  });

  it("cleans up the stalled nodes too, once they answer", async () => {
    const redlock = new Redlock(lockers, { nodeTimeout: NODE_TIMEOUT_MS, retryCount: 0 });
    const stalled = [0, 1, 2];
    const callsBefore = await Promise.all(stalled.map((index) => attemptCalls(clients[index]!)));
    pause(...stalled);
    await expect(redlock.acquire(["late-cleanup"], 10_000)).rejects.toBeInstanceOf(ExecutionError);
    resumeAll();
    // The stalled attempt ran on each of them (an order, not a wait of 100 ms)…
    await vi.waitFor(
      async () => {
        const calls = await Promise.all(stalled.map((index) => attemptCalls(clients[index]!)));
        expect(calls.every((count, at) => count > callsBefore[at]!)).toBe(true);
      },
      { timeout: 20_000, interval: 20 },
    );
    // …and its delete followed: gone well before the 10 s TTL would have removed it.
    await vi.waitFor(
      async () => expect(await keysOn("late-cleanup", [0, 1, 2, 3, 4])).toEqual([0, 0, 0, 0, 0]),
      { timeout: 5_000, interval: 20 },
    );
  });

  it("never yields a lock from nodes that answer after the TTL", async () => {
    const redlock = new Redlock(lockers, { nodeTimeout: 5_000, retryCount: 0 });
    pause(0, 1, 2);
    // Resumed 15 TTLs later: an acquire that waited for their answers would settle only after.
    let resumed = false;
    const resuming = sleep(3_000).then(() => {
      resumeAll();
      resumed = true;
    });
    await expect(redlock.acquire(["late-answer"], 200)).rejects.toBeInstanceOf(ExecutionError);
    // The TTL caps the per-node wait: a later answer could not have produced a valid lock.
    expect(resumed).toBe(false);
    await resuming;
    await sleep(500);
    expect(await keysOn("late-answer", [0, 1, 2, 3, 4])).toEqual([0, 0, 0, 0, 0]);
  });

  it("keeps a paused node's queue bounded over many operations", async () => {
    // session: false — this counts the lock operations' commands; a holder session's heartbeat
    // (one SET per node per second) would queue on the paused node too whenever the loop takes >1 s.
    // Connections of its own for the same reason: the sessions of the instances earlier tests made
    // on the shared ones beat on them too (two such SETs were the 4th and 5th queued command).
    const own = connect(masters().urls);
    try {
      await queueStaysBounded(own, await lockClients(own));
    } finally {
      await disconnect(own);
    }
    // 200 operations and a wait for the resumed node: on a loaded machine more than the default
    // 30 s (seen once, node-redis, beside a Playwright stack starting).
  }, 60_000);

  /** The loop of "keeps a paused node's queue bounded": 200 operations beside a paused node. */
  async function queueStaysBounded(own: Redis[], ownLockers: Client[]) {
    // A short nodeTimeout, so the paused node is seen overdue early in the loop; retries, because
    // a loaded 2-core machine stalled three live nodes past 50 ms once (an ExecutionError, which
    // says nothing of the queue this counts).
    const redlock = new Redlock(ownLockers, {
      nodeTimeout: 50,
      retryCount: 3,
      retryDelay: 10,
      retryJitter: 0,
      session: false,
    });
    pause(4);
    for (let round = 0; round < 200; round += 1) {
      const lock = await redlock.acquire([`bounded:${round}`], 1_000);
      await lock.release();
    }
    // Only the commands sent before the node was seen overdue wait in its queue, not one per operation.
    // node-redis keeps its queue private: there the node's "suspect" state is what shows the bound.
    if (clientKind() === "ioredis") expect(pendingCommands(own[4]!)).toBeLessThanOrEqual(3);
    expect(redlock.nodeStates()[4]!.status).toBe("suspect");
    resumeAll();
    // Once the resumed node has answered what waited: however long a loaded machine takes.
    await vi.waitFor(
      () => {
        expect(redlock.nodeStates()[4]!.status).toBe("ok");
        if (clientKind() === "ioredis") expect(pendingCommands(own[4]!)).toBe(0);
      },
      { timeout: 20_000, interval: 20 },
    );
  }

  it("releases with 2 of 5 paused as soon as the majority replied; the paused pair's delete lands later", async () => {
    // nodeTimeout 5 s: waiting for the paused pair would take that long.
    const redlock = new Redlock(clients, { nodeTimeout: 5_000, retryCount: 0 });
    const lock = await redlock.acquire(["release-hung"], 30_000);
    await lock.attempts[0];
    pause(3, 4);
    const result = await lock.release();
    // Counts known at that moment: the three live nodes; the paused pair counts in neither (a
    // release that waited out their nodeTimeout would count them as failed).
    expect(result).toMatchObject({ releasedCount: 3, failedCount: 0, alreadyReleased: false });
    expect(await keysOn("release-hung", [0, 1, 2])).toEqual([0, 0, 0]);
    resumeAll();
    // The paused pair answers once resumed: its delete happened, and `settled` counts it.
    expect(await result.settled).toEqual({
      releasedCount: 5,
      failedCount: 0,
      alreadyReleased: false,
    });
    expect(await keysOn("release-hung", [3, 4])).toEqual([0, 0]);
  });

  it("needs a majority to extend: fails with 3 of 5 paused, succeeds with 2 of 5 paused", async () => {
    const redlock = new Redlock(lockers, { nodeTimeout: NODE_TIMEOUT_MS, retryCount: 0 });
    const [first, second] = await Promise.all([
      redlock.acquire(["extend-a"], 2_000),
      redlock.acquire(["extend-b"], 2_000),
    ]);
    await Promise.all([first.attempts[0], second.attempts[0]]);
    pause(0, 1, 2);
    await expect(first.extend(3_000)).rejects.toBeInstanceOf(ExecutionError);
    resumeAll();
    await sleep(50);
    pause(0, 1);
    const longer = await second.extend(3_000);
    expect(longer.validityMs).toBeGreaterThan(2_500);
    expect(await clients[3]!.pttl("extend-b")).toBeGreaterThan(2_500);
    await longer.release();
  });
});

describe("failed attempts", () => {
  it("release their partial keys before the next retry, so they never block their own retry", async () => {
    const redlock = new Redlock(lockers, {
      nodeTimeout: NODE_TIMEOUT_MS,
      retryCount: 10,
      retryDelay: 400,
      retryJitter: 0,
    });
    // Another holder owns nodes 0-2 (a majority) for 1 s; nodes 3-4 are free.
    await Promise.all(
      [0, 1, 2].map((index) => clients[index]!.set("partial", "other-holder", "PX", 1_000)),
    );
    const startMono = performance.now();
    const pending = redlock.acquire(["partial"], 10_000);
    const samples: Array<Array<string | null>> = [];
    // Mid-way through the first two waits (attempts at ~0, ~400, ~800 ms), 200 ms from either edge.
    for (const atMs of [200, 600]) {
      await sleep(atMs - (performance.now() - startMono));
      samples.push(await Promise.all([3, 4].map((index) => clients[index]!.get("partial"))));
    }
    expect(samples).toEqual([
      [null, null],
      [null, null],
    ]);
    // The holder's keys expired at 1 s; a later attempt wins. An acquire still blocked when its
    // ten retries (4 s) ran out would reject here.
    const lock = await pending;
    expect(lock.attempts.length).toBeGreaterThanOrEqual(3);
    await lock.release();
  });
});
