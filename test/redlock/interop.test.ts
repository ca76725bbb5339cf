import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import NodeRedlock from "redlock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Redlock, { type Client, ResourceLockedError } from "@redlock-console/redlock";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { lockClients } from "../lock-clients";

// Side by side with node-redlock on the same masters; a node is paused mid-run, so masters are private.
const { masters } = usePrivateMasters(5);
let clients: Redis[];
let lockers: Client[];

beforeAll(async () => {
  clients = connect(masters().urls);
  lockers = await lockClients(clients);
});
afterAll(() => disconnect(clients));

describe("as a drop-in for node-redlock", () => {
  it("runs node-redlock's README usage unchanged", async () => {
    const redlock = new Redlock(lockers, {
      driftFactor: 0.01,
      retryCount: 10,
      retryDelay: 200,
      retryJitter: 200,
      automaticExtensionThreshold: 500,
    });
    const errors: Error[] = [];
    redlock.on("error", (error: Error) => {
      if (error instanceof ResourceLockedError) return;
      errors.push(error);
    });
    let lock = await redlock.acquire(["a"], 5_000);
    try {
      lock = await lock.extend(5_000);
    } finally {
      await lock.release();
    }
    const balances = new Map([
      ["sender", 10],
      ["recipient", 0],
    ]);
    await redlock.using(["sender", "recipient"], 5_000, async (signal) => {
      if (signal.aborted) throw signal.error;
      balances.set("sender", balances.get("sender")! - 5);
      balances.set("recipient", balances.get("recipient")! + 5);
    });
    expect([...balances.values()]).toEqual([5, 5]);
    expect(errors).toEqual([]);
  });

  it("keeps mutual exclusion with node-redlock contending for the same resources, through a node pause", async () => {
    const ours = new Redlock(lockers, {
      retryCount: -1,
      retryDelay: 10,
      retryJitter: 10,
      nodeTimeout: 100,
    });
    // node-redlock keeps a failed attempt's keys until its retries run out, so its contenders can
    // block one another for the whole run: one attempt per call, retried here, keeps them moving.
    const theirs = new NodeRedlock(clients, { retryCount: 0 });
    const resource = `interop:${randomUUID()}`;
    const holders = new Set<string>();
    let overlaps = 0;
    const wins = { ours: 0, theirs: 0 };
    const deadline = Date.now() + 2_000;
    const acquireTheirs = async (): Promise<{ release(): Promise<unknown> }> => {
      for (;;) {
        // node-redlock's published types omit Lock's methods under this module resolution.
        const lock = await theirs.acquire([resource], 1_000).catch(() => undefined);
        if (lock) return lock as unknown as { release(): Promise<unknown> };
        await sleep(10 + Math.random() * 10);
      }
    };
    const contend = async (library: "ours" | "theirs", id: string) => {
      while (Date.now() < deadline) {
        const lock =
          library === "ours" ? await ours.acquire([resource], 1_000) : await acquireTheirs();
        if (holders.size > 0) overlaps += 1;
        holders.add(id);
        await sleep(2);
        holders.delete(id);
        wins[library] += 1;
        await lock.release().catch(() => undefined);
      }
    };
    setTimeout(() => masters().pause(1), 500);
    setTimeout(() => masters().resume(1), 1_200);
    await Promise.all(
      [0, 1, 2].flatMap((n) => [contend("ours", `ours-${n}`), contend("theirs", `theirs-${n}`)]),
    );
    expect(overlaps).toBe(0);
    expect(wins.ours).toBeGreaterThan(5);
    expect(wins.theirs).toBeGreaterThan(5);
  });
});
