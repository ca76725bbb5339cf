/**
 * Client wall-clock jumps: elapsed time is measured on the monotonic clock, while
 * `lock.expiration` is epoch ms. No master is faulted, so the shared masters serve.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import Redlock, { type Lock } from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls } from "../masters";

let clients: Redis[];
let redlock: Redlock;

beforeAll(() => {
  clients = connect(sharedUrls());
  redlock = new Redlock(clients, { retryCount: 0 });
});
afterAll(() => disconnect(clients));
afterEach(() => {
  vi.restoreAllMocks();
});

describe("client wall-clock jumps", () => {
  it("do not change the validity an acquire grants, but move validityMs (an epoch-based reading)", async () => {
    const realNow = Date.now.bind(Date);
    const offset = { ms: 0 };
    vi.spyOn(Date, "now").mockImplementation(() => realNow() + offset.ms);
    const startedAt = realNow();
    const pending = redlock.acquire([`clock-jump:${randomUUID()}`], 2_000); // reads the wall clock once, synchronously
    offset.ms = 3_600_000; // the clock jumps an hour ahead while the nodes answer
    const lock: Lock = await pending;
    // Still about TTL - drift (1,978 ms) after the start: the hour the clock jumped meanwhile is not
    // counted, because elapsed time is measured on the monotonic clock.
    expect(lock.expiration - startedAt).toBeGreaterThan(1_900);
    expect(lock.expiration - startedAt).toBeLessThan(2_000);
    expect(lock.validityMs).toBeLessThan(0); // after a forward jump the lock looks expired: safe
    offset.ms = -3_600_000;
    expect(lock.validityMs).toBeGreaterThan(3_600_000); // after a backward jump it looks an hour longer: do not trust it
    vi.restoreAllMocks();
    await lock.release();
  });
});
