// test-group: timed
/**
 * A tombstone that runs out unacknowledged wakes the next waiter at once (issue 39, item 1), on
 * the shared masters: a real using() holder in a process of its own, SIGSTOPped so it never
 * acknowledges, is force-released through the console's route; a contender waits with a 20 s
 * retryDelay. When the tombstone expires the console runs the library's wake step
 * (wakeNextWaiter), and the contender gets the lock within WAKE_BOUND_MS of the tombstone leaving
 * a majority (measured against the tombstones' PTTLs), not at its next retry up to 20 s later.
 * wakeNextWaiter itself wakes nobody while the resource is still held on the nodes.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import Redlock, { wakeNextWaiter } from "@redlock-console/redlock";
import * as forceRelease from "@/app/api/locks/force-release/route";
import type { ForceReleaseResponse } from "@/lib/api";
import { listedWithWake, sharedUrls, sleep } from "../masters";
import { forkUsingHolder } from "./fixtures/using-holder-process";
import { call, startTestConsole, type TestConsole } from "./helpers";

/**
 * From the tombstone leaving a majority to the contender's lock: the index sees the expiry (its
 * sweep runs every 100 ms, Redis's own expired event as often), one wake, one acquire: 29-111 ms
 * measured. The bound leaves room for a loaded 2-core CI machine; a wait woken by its own retry
 * instead comes anywhere in the 20 s retryDelay, so the old code fails it 19 runs in 20.
 */
const WAKE_BOUND_MS = 1_000;
const RETRY_DELAY_MS = 20_000;
/**
 * The holder's TTL: long enough that the value still has validity on every node that holds it
 * when the route runs on a loaded machine (the route tombstones only what has validity left).
 */
const HOLDER_TTL_MS = 6_000;

let tc: TestConsole;
beforeAll(async () => {
  tc = startTestConsole(sharedUrls());
  await tc.ready();
});
afterAll(() => tc.close());

it("a tombstone that expires unacknowledged (holder SIGSTOPped) wakes the waiting contender at once, not at its next retry (20 s)", async () => {
  const resource = `${tc.prefix}expired-tombstone:${randomUUID()}`;
  const holder = forkUsingHolder({
    resource,
    ttlMs: HOLDER_TTL_MS,
    windDownMs: 0,
    connectionName: `using-holder-${randomUUID().slice(0, 8)}`,
    urls: sharedUrls(),
  });
  const clients = sharedUrls().map((url) => new Redis(url));
  const contender = new Redlock(
    sharedUrls().map((url) => new Redis(url)),
    { retryCount: 0 },
  );
  try {
    const held = await holder.next("held");
    // Stopped, it never hears its notice and never acknowledges: the tombstone can only expire.
    holder.child.kill("SIGSTOP");
    await tc.sync();
    // Held on a majority, not always on all five: on a loaded machine one node's vote can come
    // too late (ciF: 4 of 5). The route tombstones every node that holds the value.
    const holding = await Promise.all(clients.map((client) => client.get(resource)));
    const holdingCount = holding.filter((value) => value === held.value).length;
    expect(holdingCount).toBeGreaterThanOrEqual(3);
    const response = await call<ForceReleaseResponse>(
      forceRelease.POST,
      "/api/locks/force-release",
      {
        body: { resource, expectedValue: held.value, reason: "worker hung" },
      },
    );
    expect(response.body).toMatchObject({ mode: "tombstoned", tombstonedCount: holdingCount });
    const readAt = Date.now();
    const pttls = await Promise.all(clients.map((client) => client.pttl(resource)));
    // Gone from a majority (the third tombstone to expire) by then at the latest.
    const goneAt = readAt + [...pttls].sort((a, b) => a - b)[2]!;
    const acquiring = contender
      .acquire([resource], 5_000, {
        retryCount: -1,
        retryDelay: RETRY_DELAY_MS,
        retryJitter: 0,
        signal: AbortSignal.timeout(20_000),
      })
      .then((lock) => ({ lock, acquiredAt: Date.now() }));
    // The contender lost its first attempt and waits, listed on a majority, before the expiry.
    // Listed with its wake channel on the wake nodes (a majority): until its subscriptions are
    // confirmed a wait is listed without one, and a node that lists it so publishes no wake (seen
    // with two timed files at once: 2 wakes, the third listing still without its channel).
    await expect.poll(() => listedWithWake(clients, resource)).toBeGreaterThanOrEqual(3);
    expect(Date.now()).toBeLessThan(goneAt - 200);
    const { lock, acquiredAt } = await acquiring;
    await lock.release();
    const lateMs = acquiredAt - goneAt;
    console.log(`expired tombstone: pttls ${pttls.join(",")} ms, contender ${lateMs} ms after`);
    expect(lateMs).toBeGreaterThanOrEqual(-2);
    expect(lateMs).toBeLessThanOrEqual(WAKE_BOUND_MS);
  } finally {
    holder.child.kill("SIGKILL");
    await contender.quit().catch(() => undefined);
    for (const client of clients) client.disconnect();
    await sleep(0);
  }
});

it("wakeNextWaiter wakes nobody while the resource is held, and the waiting contender once it is free", async () => {
  const resource = `${tc.prefix}wake-next:${randomUUID()}`;
  const clients = sharedUrls().map((url) => new Redis(url));
  const listeners: Redis[] = [];
  const holder = new Redlock(
    sharedUrls().map((url) => new Redis(url)),
    { retryCount: 0 },
  );
  const contender = new Redlock(
    sharedUrls().map((url) => new Redis(url)),
    { retryCount: 0 },
  );
  try {
    await holder.acquire([resource], 10_000);
    // Every wake message published on any node (handoff.ts: one wait id per wake channel).
    const wakes: string[] = [];
    listeners.push(...sharedUrls().map((url) => new Redis(url)));
    for (const listener of listeners) {
      listener.on("pmessage", (_pattern: string, _channel: string, id: string) => wakes.push(id));
      await listener.psubscribe("redlock:wake:*");
    }
    let acquiredAt = 0;
    const acquiring = contender
      .acquire([resource], 5_000, {
        retryCount: -1,
        retryDelay: RETRY_DELAY_MS,
        retryJitter: 0,
        signal: AbortSignal.timeout(20_000),
      })
      .then((lock) => ((acquiredAt = Date.now()), lock));
    // Listed with its wake channel on the wake nodes (a majority): until its subscriptions are
    // confirmed a wait is listed without one, and a node that lists it so publishes no wake (seen
    // with two timed files at once: 2 wakes, the third listing still without its channel).
    await expect.poll(() => listedWithWake(clients, resource)).toBeGreaterThanOrEqual(3);
    expect(await wakeNextWaiter(clients, resource)).toBe(0);
    await sleep(300);
    expect(acquiredAt).toBe(0);
    expect(wakes).toEqual([]);
    // Gone without a release (as an expiry is): nobody was woken by the delete itself.
    await Promise.all(clients.map((client) => client.del(resource)));
    const wokeAt = Date.now();
    const freeCount = await wakeNextWaiter(clients, resource);
    const lock = await acquiring;
    // Free on every node, except where the woken contender's SET got there before the wake
    // script (two wakes start it: the race handoff.test describes); there the key is its own.
    const heldByContender = (await Promise.all(clients.map((c) => c.get(resource)))).filter(
      (value) => value === lock.value,
    ).length;
    expect(freeCount).toBeGreaterThanOrEqual(clients.length - heldByContender);
    await lock.release();
    expect(acquiredAt - wokeAt).toBeLessThanOrEqual(WAKE_BOUND_MS);
    // A wake from at least the two wake nodes a wake needs, all for the one waiting contender.
    expect(wakes.length).toBeGreaterThanOrEqual(2);
    expect(new Set(wakes).size).toBe(1);
  } finally {
    await holder.quit().catch(() => undefined);
    await contender.quit().catch(() => undefined);
    for (const client of [...clients, ...listeners]) client.disconnect();
  }
});
