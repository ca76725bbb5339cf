/**
 * Fencing tokens (DESIGN duty 8): what they guarantee, and where that guarantee ends.
 * The fenced store lives on a shared master that is never faulted; the lock masters are private.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import Redlock, { fenceKey } from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls, sleep, usePrivateMasters } from "../masters";
import { FencedStore } from "./fenced-store";
import { quiet, waitAllVoting, waitFor, waitNodeStatus, waitRestartSeen } from "./support";

const { masters } = usePrivateMasters();
const quarantineMs = 1_000;
let opened: Redis[][] = [];
let storeClient: Redis;
let store: FencedStore;
const name = (label: string) => `fencing:${label}:${randomUUID()}`;

beforeAll(() => {
  storeClient = new Redis(sharedUrls()[0]!);
  store = new FencedStore(storeClient);
});
afterAll(() => storeClient.quit());
afterEach(async () => {
  await Promise.all(opened.map(disconnect));
  opened = [];
});

async function client(
  restartQuarantine: number | false = quarantineMs,
): Promise<{ clients: Redis[]; redlock: Redlock }> {
  const clients = quiet(connect(masters().urls));
  opened.push(clients);
  const redlock = new Redlock(clients, {
    fencing: true,
    restartQuarantine,
    retryCount: 0,
    nodeTimeout: 500,
  });
  await waitAllVoting(redlock);
  return { clients, redlock };
}

const counters = (clients: Redis[], resource: string) =>
  Promise.all(clients.map((node) => node.get(fenceKey(resource)).then(Number)));

/** Acquires and releases `count` times, round-robin over `redlocks`; returns the tokens in order. */
async function successiveTokens(
  redlocks: Redlock[],
  resource: string,
  count: number,
): Promise<number[]> {
  const tokens: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const lock = await redlocks[index % redlocks.length]!.acquire([resource], 1_000);
    tokens.push(lock.fencingToken!);
    await lock.release(); // same connections, so every node applied the token before the release
  }
  return tokens;
}

const expectIncreasing = (tokens: number[]) =>
  tokens.slice(1).forEach((token, index) => expect(token).toBeGreaterThan(tokens[index]!));

describe("fencing tokens", () => {
  it("strictly increase across successive holders on separate connections, and every node records the last", async () => {
    const holders = await Promise.all([client(), client(), client()]);
    const resource = name("successive");
    const tokens = await successiveTokens(
      holders.map((holder) => holder.redlock),
      resource,
      30,
    );
    expect(tokens).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
    expect(await counters(holders[0]!.clients, resource)).toEqual(Array(5).fill(30));
  });

  it("keep increasing across an empty restart of one node (quarantine on), which catches up after its window", async () => {
    const { clients, redlock } = await client();
    const resource = name("restart");
    const before = await successiveTokens([redlock], resource, 5);
    await masters().restartEmpty(1);
    await waitNodeStatus(redlock, clients[1]!, 1, "quarantined");
    const during = await successiveTokens([redlock], resource, 5);
    expect((await counters(clients, resource))[1]).toBe(0); // the restarted node lost its counter
    await waitNodeStatus(redlock, clients[1]!, 1, "ok");
    const after = await successiveTokens([redlock], resource, 5);
    expectIncreasing([...before, ...during, ...after]);
    expect(await counters(clients, resource)).toEqual(Array(5).fill(after.at(-1)));
  });

  it("keep increasing when the nodes that kept the last token answer after a majority that missed or lost it", async () => {
    const { clients, redlock } = await client();
    const resource = name("late-keepers");
    await successiveTokens([redlock], resource, 2); // every node records 2
    masters().pause(3);
    masters().pause(4);
    const [last] = (await successiveTokens([redlock], resource, 3)).slice(-1); // 3..5 on nodes 1-3 only
    masters().resume(3);
    masters().resume(4);
    await Promise.all([3, 4].map((index) => clients[index]!.del(resource))); // after their queued, late acquire
    const oldRunId = redlock.nodeStates()[2]!.runId;
    await masters().restartEmpty(2); // node 3 loses counter 5: only nodes 1-2 keep it
    await waitRestartSeen(redlock, 2, oldRunId);
    await waitNodeStatus(redlock, clients[2]!, 2, "ok"); // its quarantine has passed: it votes again
    const [keeper0, keeper1, ...others] = await counters(clients, resource);
    expect([keeper0, keeper1]).toEqual([last, last]);
    expect(Math.max(...others)).toBeLessThan(last!); // 0 on the restarted node, stale on the two paused

    masters().pause(0);
    masters().pause(1);
    const pending = redlock.acquire([resource], 1_000); // nodes 3-5 form a majority at once
    await sleep(50);
    masters().resume(0); // the keepers answer late, but within nodeTimeout
    masters().resume(1);
    const lock = await pending;
    expect(lock.fencingToken!).toBeGreaterThan(last!);
    await lock.release();
  });

  it("give a holder paused past its TTL a lower token than the next holder, and the fenced store refuses its late write", async () => {
    const [a, b] = await Promise.all([client(), client()]);
    const resource = name("paused");
    const lockA = await a.redlock.acquire([resource], 300);
    expect(await store.write(resource, lockA.fencingToken!, lockA.value, "A, in time")).toBe(true);
    await sleep(450); // A stalls (a GC pause, a stopped process) past its TTL
    const lockB = await b.redlock.acquire([resource], 1_000);
    expect(lockB.fencingToken!).toBeGreaterThan(lockA.fencingToken!);
    expect(await store.write(resource, lockB.fencingToken!, lockB.value, "B")).toBe(true);
    expect(await store.write(resource, lockA.fencingToken!, lockA.value, "A, too late")).toBe(
      false,
    );
    expect(await store.read(resource)).toEqual({
      token: lockB.fencingToken,
      holder: lockB.value,
      data: "B",
    });
    await lockB.release();
  });

  it("still order writes when a majority loses the lock early (what a forward clock jump on those servers does)", async () => {
    const [a, b] = await Promise.all([client(), client()]);
    const resource = name("early-expiry");
    const lockA = await a.redlock.acquire([resource], 10_000);
    // Servers' clocks jumped forward: their keys expire now although A's validity has seconds left.
    await Promise.all([0, 1, 2].map((index) => a.clients[index]!.pexpire(resource, 1)));
    await sleep(5);
    const lockB = await b.redlock.acquire([resource], 10_000);
    expect(lockA.validityMs).toBeGreaterThan(5_000); // mutual exclusion is lost: both believe they hold it
    expect(lockB.fencingToken!).toBeGreaterThan(lockA.fencingToken!);
    expect(await store.write(resource, lockB.fencingToken!, lockB.value, "B")).toBe(true);
    expect(await store.write(resource, lockA.fencingToken!, lockA.value, "A")).toBe(false);
    await Promise.all([lockA.release(), lockB.release()]);
  });

  it("limit: when every node of a majority lost its counter (three empty restarts), a token repeats and the store refuses its holder", async () => {
    const { clients, redlock } = await client(false);
    const resource = name("counter-loss");
    const [last] = (await successiveTokens([redlock], resource, 4)).slice(-1);
    expect(
      await store.write(resource, last!, "earlier holder", "written with the highest token"),
    ).toBe(true);
    masters().pause(3);
    masters().pause(4);
    try {
      await Promise.all([0, 1, 2].map((index) => masters().restartEmpty(index)));
      await waitFor("nodes 1-3 to reconnect", () =>
        [0, 1, 2].every((index) => clients[index]!.status === "ready"),
      );
      const lock = await redlock.acquire([resource], 1_000);
      expect(lock.fencingToken).toBe(1); // nodes 4-5 kept counter 4, but no majority did
      expect(await store.write(resource, lock.fencingToken!, lock.value, "new holder")).toBe(false);
      await lock.release();
    } finally {
      masters().resume(3);
      masters().resume(4);
    }
  });
});
