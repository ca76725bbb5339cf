import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import Redlock, {
  type Client,
  ExecutionError,
  type RedlockAbortSignal,
} from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls, sleep } from "../masters";
import { lockClients } from "../lock-clients";

let clients: Redis[];
let lockers: Client[];
let redlock: Redlock;
const name = (label: string) => `test:using:${randomUUID()}:${label}`;

beforeAll(async () => {
  clients = connect(sharedUrls());
  lockers = await lockClients(clients);
  redlock = new Redlock(lockers, { retryCount: 0, automaticExtensionThreshold: 200 });
});
afterAll(() => disconnect(clients));

describe("using", () => {
  it("keeps the lock alive past its TTL, then releases it", async () => {
    const resource = name("alive");
    let seenValue: string | null = null;
    const result = await redlock.using([resource], 400, async (signal) => {
      await sleep(1_000); // 2.5 TTLs
      expect(signal.aborted).toBe(false);
      seenValue = await clients[0]!.get(resource);
      return "done";
    });
    expect(result).toBe("done");
    expect(seenValue).toMatch(/^rl1:[0-9a-f]{40}:\{/);
    // The release resolves at a majority; the other nodes' deletes follow within nodeTimeout.
    await vi.waitFor(async () => {
      for (const client of clients) expect(await client.exists(resource)).toBe(0);
    });
  });

  it("aborts the routine's signal with the error when the keys vanish", async () => {
    const resource = name("vanish");
    let captured: RedlockAbortSignal | undefined;
    await redlock.using([resource], 400, async (signal) => {
      captured = signal;
      await Promise.all(clients.map((client) => client.del(resource)));
      await sleep(500);
    });
    expect(captured?.aborted).toBe(true);
    expect(captured?.error).toBeInstanceOf(ExecutionError);
  });

  it("cancels a pending acquire when the caller's AbortSignal fires", async () => {
    const resource = name("cancel");
    const holder = await redlock.acquire([resource], 5_000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("caller gave up")), 150);
    const startMs = Date.now();
    let ran = false;
    const outcome = redlock.using(
      [resource],
      1_000,
      { retryCount: -1, retryDelay: 5_000, retryJitter: 0, signal: controller.signal },
      async () => {
        ran = true;
      },
    );
    await expect(outcome).rejects.toThrow();
    // The abort (at 150 ms) cuts the 5 s retry wait short: an uncut wait lasts past 5 s.
    expect(Date.now() - startMs).toBeLessThan(5_000);
    expect(ran).toBe(false);
    await holder.release();
  });

  it("passes settings through and rejects a duration too close to the extension threshold", async () => {
    await expect(redlock.using([name("short")], 250, async () => undefined)).rejects.toThrow(
      "A lock `duration` must be at least 100ms greater than the `automaticExtensionThreshold` setting.",
    );
  });
});
