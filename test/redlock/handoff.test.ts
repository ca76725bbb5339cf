/**
 * Handoff: a contender waiting to retry wakes when the lock is released (pub/sub published by the
 * release script) instead of sleeping out retryDelay; without a subscriber-capable client it sleeps.
 */
import { performance } from "node:perf_hooks";
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import Redlock from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls, sleep } from "../masters";

const WAKE = { wakeOnRelease: true }; // opt-in
let clients: Redis[];
let admins: Redis[];

beforeAll(() => {
  clients = connect(sharedUrls());
  admins = connect(sharedUrls());
});
afterAll(async () => {
  await disconnect(clients);
  await disconnect(admins);
});

const subscribers = (channel: string) =>
  Promise.all(
    admins.map(async (admin) => {
      const reply = (await admin.call("PUBSUB", "NUMSUB", channel)) as [string, number];
      return Number(reply[1]);
    }),
  );

describe("handoff on release", () => {
  it("wakes a waiting contender at once, well before its retryDelay", async () => {
    const holder = new Redlock(clients, { retryCount: 0 });
    const contender = new Redlock(clients, {
      retryCount: 5,
      retryDelay: 10_000,
      retryJitter: 0,
      ...WAKE,
    });
    const resource = `test:handoff:${randomUUID()}`;
    const channel = `redlock:released:${resource}`;
    const lock = await holder.acquire([resource], 30_000);
    const pending = contender.acquire([resource], 30_000);
    // Subscribed on every node while it waits: the event the release below needs.
    await vi.waitFor(async () => expect(await subscribers(channel)).toEqual([1, 1, 1, 1, 1]));
    const releasedMono = performance.now();
    await lock.release();
    const next = await pending;
    // Without the wake-up this takes 10 s (retryDelay); a loaded machine stays far below.
    expect(performance.now() - releasedMono).toBeLessThan(5_000);
    expect(next.attempts).toHaveLength(2);
    await next.release();
  });

  it("stops listening once nobody waits (after a short linger)", async () => {
    const holder = new Redlock(clients, { retryCount: 0 });
    const contender = new Redlock(clients, {
      retryCount: 1,
      retryDelay: 50,
      retryJitter: 0,
      ...WAKE,
    });
    const resource = `test:handoff-idle:${randomUUID()}`;
    const channel = `redlock:released:${resource}`;
    const lock = await holder.acquire([resource], 30_000);
    await expect(contender.acquire([resource], 30_000)).rejects.toThrow();
    await vi.waitFor(async () => expect(await subscribers(channel)).toEqual([0, 0, 0, 0, 0]), {
      timeout: 5_000,
    });
    await lock.release();
  });

  it("falls back to sleeping for clients that cannot subscribe", async () => {
    // Connections without duplicate(): like a client that cannot open a subscriber.
    const plain = connect(sharedUrls());
    for (const client of plain) Object.assign(client, { duplicate: undefined });
    const holder = new Redlock(clients, { retryCount: 0 });
    const contender = new Redlock(plain, {
      retryCount: 5,
      retryDelay: 400,
      retryJitter: 0,
      ...WAKE,
    });
    const resource = `test:handoff-plain:${randomUUID()}`;
    const lock = await holder.acquire([resource], 30_000);
    const startMono = performance.now();
    const pending = contender.acquire([resource], 30_000);
    await sleep(50);
    await lock.release();
    const next = await pending;
    // The retry came after the full retryDelay, not at the release.
    expect(performance.now() - startMono).toBeGreaterThanOrEqual(400);
    expect(await subscribers(`redlock:released:${resource}`)).toEqual([0, 0, 0, 0, 0]);
    await next.release();
    await disconnect(plain);
  });

  it("does not wake contenders on a failed attempt's own clean-up", async () => {
    const contender = new Redlock(clients, {
      retryCount: 2,
      retryDelay: 300,
      retryJitter: 0,
      ...WAKE,
    });
    const resource = `test:handoff-cleanup:${randomUUID()}`;
    // A majority held by someone else: each attempt sets nodes 3-4, then cleans them up.
    await Promise.all(
      [0, 1, 2].map((index) => clients[index]!.set(resource, "other", "PX", 30_000)),
    );
    const startMono = performance.now();
    await expect(contender.acquire([resource], 30_000)).rejects.toThrow();
    // Two full waits: the clean-up releases did not cut them short.
    expect(performance.now() - startMono).toBeGreaterThanOrEqual(600);
    await Promise.all(clients.map((client) => client.del(resource)));
  });
});
