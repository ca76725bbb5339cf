/**
 * Semaphores on five real masters: k permits are k ordinary locks `{name}#i`; the permit count is
 * recorded beside them and a client giving another count is refused, naming both; a waiter is
 * woken by the release of any permit; `using` extends the permit and the record together; fencing
 * works per permit.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import Redlock, {
  ExecutionError,
  ShapeMismatchError,
  clusterSlot,
  fenceKey,
  permitKey,
  queueKey,
  readerKey,
  revokeKey,
  rwLockKey,
  semaphoreKey,
  writerKey,
  writerWaitingKey,
} from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls } from "../masters";
import { lockClients } from "../lock-clients";

let clients: Redis[];
let redlock: Redlock;

beforeAll(async () => {
  clients = connect(sharedUrls());
  redlock = new Redlock(await lockClients(clients), { retryCount: 0 });
});
afterAll(async () => {
  await disconnect(clients);
});

const BOTH_TTLS = `return {redis.call("pttl", KEYS[1]), redis.call("pttl", KEYS[2])}`;
const fresh = () => `sem-${randomUUID()}`;

describe("a semaphore of k permits", () => {
  it("admits k holders, each on its own permit key, and refuses the k+1-th", async () => {
    const name = fresh();
    const semaphore = redlock.semaphore(name, 3);
    const locks = await Promise.all([0, 1, 2].map(() => semaphore.acquire(5_000)));
    expect(locks.map((lock) => lock.permit).sort()).toEqual([0, 1, 2]);
    for (const lock of locks) {
      expect(lock.resources).toEqual([permitKey(name, lock.permit!)]);
      const values = await Promise.all(clients.map((client) => client.get(lock.resources[0]!)));
      expect(values.filter((value) => value === lock.value).length).toBeGreaterThanOrEqual(3);
    }
    await expect(semaphore.acquire(5_000)).rejects.toBeInstanceOf(ExecutionError);
    // The count is recorded beside the permits, and lives no longer than they do.
    for (const client of clients) {
      expect(await client.get(semaphoreKey(name))).toBe("3");
      expect(await client.pttl(semaphoreKey(name))).toBeLessThanOrEqual(5_000);
    }
    await locks[1]!.release();
    const again = await semaphore.acquire(5_000);
    expect(again.permit).toBe(locks[1]!.permit);
    await Promise.all([...locks, again].map((lock) => lock.release()));
  });

  it("refuses a client that gives another permit count, naming both numbers", async () => {
    const name = fresh();
    const held = await redlock.semaphore(name, 3).acquire(5_000);
    const other = redlock.semaphore(name, 5);
    const error: unknown = await other.acquire(5_000).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ShapeMismatchError);
    expect(error).toMatchObject({ subject: name, expected: 5, recorded: 3 });
    expect((error as Error).message).toMatch(/3 permits recorded.*asked for 5/);
    // Refused before any permit was taken: the one holder is alone.
    const taken = await Promise.all(
      [0, 1, 2, 3, 4].map((index) => clients[0]!.exists(permitKey(name, index))),
    );
    expect(taken.reduce((sum, count) => sum + count, 0)).toBe(1);
    await held.release();
  });

  it("hands a freed permit to the waiter on its release, not at its retry, whichever permit it was", async () => {
    const name = fresh();
    const waiting = new Redlock(connect(sharedUrls()), { retryCount: 1, retryDelay: 20_000 });
    try {
      const semaphore = redlock.semaphore(name, 2);
      const [first, second] = [await semaphore.acquire(10_000), await semaphore.acquire(10_000)];
      const startedMs = Date.now();
      const waiter = waiting.semaphore(name, 2).acquire(10_000);
      // Listed in the semaphore's one queue, with its wake channel, on a majority.
      await vi.waitFor(
        async () => {
          const members = await Promise.all(
            clients.map((client) => client.zrange(queueKey(name), 0, -1)),
          );
          const listed = members.filter((set) => set.some((member) => member.includes('"wake":')));
          expect(listed.length).toBeGreaterThanOrEqual(3);
        },
        { timeout: 10_000, interval: 20 },
      );
      await second!.release();
      const lock = await waiter;
      // Well inside the 20 s sleeping retry: the release woke it. How soon is the bench's target
      // (bench/targets/library.ts).
      expect(Date.now() - startedMs).toBeLessThan(15_000);
      expect(lock.permit).toBe(second!.permit);
      await Promise.all([first!.release(), lock.release()]);
    } finally {
      await waiting.quit();
    }
  });

  it("using() extends the permit and the recorded count together, and releases after", async () => {
    const name = fresh();
    const semaphore = redlock.semaphore(name, 1);
    const seen = await semaphore.using(
      1_000,
      { automaticExtensionThreshold: 800 },
      async (signal) => {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        // Both TTLs in one script per node: an extension cannot land between the two reads.
        const ttls = await Promise.all(
          clients.map(
            (client) =>
              client.eval(BOTH_TTLS, 2, semaphoreKey(name), permitKey(name, 0)) as Promise<
                [number, number]
              >,
          ),
        );
        return {
          aborted: signal.aborted,
          guardTtls: ttls.map(([guard]) => guard),
          permitTtls: ttls.map(([, permit]) => permit),
        };
      },
    );
    expect(seen.aborted).toBe(false);
    // Past the first TTL, both still there: the record was raised with each extension.
    const both = seen.guardTtls.filter(
      (ttl, index) => ttl > 0 && seen.permitTtls[index]! > 0 && ttl >= seen.permitTtls[index]!,
    );
    expect(both.length).toBeGreaterThanOrEqual(3);
    expect(await clients[0]!.exists(permitKey(name, 0))).toBe(0);
  });

  it("hands out fencing tokens per permit, increasing across its holders", async () => {
    const name = fresh();
    const fenced = new Redlock(await lockClients(clients), { retryCount: 0, fencing: true });
    const semaphore = fenced.semaphore(name, 1);
    const first = await semaphore.acquire(5_000);
    await first.release();
    const second = await semaphore.acquire(5_000);
    expect(first.fencingToken).toBeGreaterThan(0);
    expect(second.fencingToken).toBeGreaterThan(first.fencingToken!);
    await second.release();
  });

  it("puts every key of a semaphore and of a read-write lock in one Redis Cluster slot", () => {
    for (const name of ["exports", "a{b", "orders:42", "ünï code", "{"]) {
      const keys = [
        semaphoreKey(name),
        queueKey(name),
        ...[0, 1, 7].flatMap((index) => [
          permitKey(name, index),
          fenceKey(permitKey(name, index)),
          revokeKey(permitKey(name, index)),
          readerKey(name, index),
          fenceKey(readerKey(name, index)),
        ]),
        rwLockKey(name),
        writerKey(name),
        writerWaitingKey(name),
        revokeKey(writerKey(name)),
      ];
      expect(new Set(keys.map(clusterSlot)).size, name).toBe(1);
    }
  });

  it("refuses names that cannot be one hash tag, and counts out of range", () => {
    expect(() => redlock.semaphore("", 2)).toThrow(TypeError);
    expect(() => redlock.semaphore("a}b", 2)).toThrow(TypeError);
    expect(() => redlock.semaphore("ok", 0)).toThrow(RangeError);
    expect(() => redlock.semaphore("ok", 1.5)).toThrow(RangeError);
  });
});
