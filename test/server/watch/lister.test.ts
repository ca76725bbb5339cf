/** The lister (the informer's list): paced SCAN, generation sweep, run_id check. No Redis. */
import { describe, expect, it } from "vitest";
import type { ListingReason } from "@/lib/api";
import type { Budget } from "@/lib/server/locks/watch/io/budget";
import { Lister } from "@/lib/server/locks/watch/list/lister";
import { NodeStore } from "@/lib/server/locks/watch/store/node-store";
import type { GapReason } from "@/lib/server/locks/watch/list/phase";
import { FakeClock } from "./fake-clock";
import { FakeCommands } from "./fake-node";

/** A budget that never waits, and records every draw. */
function recordingBudget(burst: number): Budget & { draws: number[] } {
  const draws: number[] = [];
  const bytes = { perS: 1e9, burst: 1e8, take: async () => {} };
  return { perS: burst * 10, burst, draws, bytes, take: async (keys) => void draws.push(keys) };
}

interface ListerSetup {
  burst?: number;
  patterns?: string[];
  prepare?: (reason: ListingReason) => ListingReason;
}

function listerOf(options: ListerSetup = {}) {
  const clock = new FakeClock();
  const client = new FakeCommands();
  const budget = recordingBudget(options.burst ?? 100);
  const store = new NodeStore({
    maxKeys: 1_000,
    shared: (name, value) => ({ name, value }),
    onChange: () => {},
    nowMs: clock.now(),
  });
  const calls: string[] = [];
  const lister = new Lister({
    client,
    budget,
    patterns: options.patterns ?? ["lock:*"],
    clock,
    signal: new AbortController().signal,
    store,
    read: async (keys) => {
      const states = await client.readKeys(keys);
      keys.forEach((key, index) => {
        const state = states[index];
        if (state) store.put(key.toString("latin1"), state, clock.now());
      });
      return states.filter(Boolean).length;
    },
    forget: (name) => {
      calls.push(`forget ${name}`);
      store.remove(name, "unknown");
    },
    prepare: async (reason: ListingReason) => {
      calls.push(`prepare ${reason}`);
      return options.prepare?.(reason) ?? reason;
    },
    onRestart: () => calls.push("restart"),
    onRelist: (reason: GapReason) => calls.push(`relist ${reason}`),
  });
  return { clock, client, budget, store, calls, lister };
}

describe("the lister", () => {
  it("scans every pattern in COUNT-sized steps, each drawn from the budget first", async () => {
    const { client, budget, store, lister } = listerOf({
      burst: 10,
      patterns: ["lock:*", "job:*"],
    });
    for (let index = 0; index < 25; index += 1)
      client.keys.set(`lock:${index}`, { value: "v", pttlMs: -1 });
    client.keys.set("job:1", { value: "w", pttlMs: -1 });
    await lister.list("start");
    // The fixed commands, then three SCAN calls of COUNT 10 per pattern (26 keys).
    expect(budget.draws).toEqual([3, 10, 10, 10, 10, 10, 10]);
    expect(client.sent.filter((command) => command.startsWith("SCAN"))).toHaveLength(6);
    expect(store.size).toBe(26);
  });

  it("leaves the library's own keys out of the reads", async () => {
    const { client, store, lister } = listerOf({ patterns: ["*"] });
    client.keys.set("lock:a", { value: "v", pttlMs: -1 });
    client.keys.set("redlock:waiters:lock:a", { value: "w", pttlMs: -1 });
    await lister.list("start");
    expect([...store.keys()]).toEqual(["lock:a"]);
  });

  it("reports its progress while it runs, and its times once it ended", async () => {
    const { clock, client, lister } = listerOf();
    client.keys.set("lock:a", { value: "v", pttlMs: -1 });
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const readKeys = client.readKeys.bind(client);
    client.readKeys = async (keys) => (await gate, readKeys(keys));
    expect(lister.last).toBeNull();
    const listing = lister.list("resync");
    await clock.advance(0);
    expect(lister.progress).toMatchObject({ reason: "resync", keysTotal: 1, keysVisited: 100 });
    release();
    await listing;
    expect(lister.progress).toBeNull();
    expect(lister.last).toEqual({
      startedAtMs: clock.now(),
      endedAtMs: clock.now(),
      skippedKeys: 0,
      keysVisited: 100,
      keysTotal: 1,
    });
  });

  it("forgets what the listing did not see (the generation sweep)", async () => {
    const { client, store, calls, lister } = listerOf();
    client.keys.set("lock:a", { value: "v", pttlMs: -1 });
    client.keys.set("lock:b", { value: "v", pttlMs: -1 });
    await lister.list("start");
    client.keys.delete("lock:a");
    await lister.list("resync");
    expect(calls).toContain("forget lock:a");
    expect([...store.keys()]).toEqual(["lock:b"]);
  });

  it("tells of a gap listing, not of a resync or a poll", async () => {
    const { calls, lister } = listerOf();
    await lister.list("start");
    await lister.list("resync");
    await lister.list("poll");
    await lister.list("overflow");
    expect(calls.filter((call) => call.startsWith("relist"))).toEqual([
      "relist start",
      "relist overflow",
    ]);
  });

  it("relists from nothing after a restart (run_id changed): everything forgotten first", async () => {
    const { client, store, calls, lister } = listerOf();
    client.keys.set("lock:a", { value: "v", pttlMs: -1 });
    await lister.list("start");
    calls.length = 0;
    client.runId = "run2";
    await lister.list("resync");
    expect(calls).toEqual(["prepare resync", "restart", "forget lock:a", "relist restart"]);
    expect(store.get("lock:a")).toBeDefined(); // still held: listed again
  });

  it("lists for the reason prepare returns (a new subscription makes a poll a relist)", async () => {
    const { calls, lister } = listerOf({ prepare: () => "reconnect" });
    await lister.list("poll");
    expect(calls).toEqual(["prepare poll", "relist reconnect"]);
  });

  it("drops its progress when a listing fails", async () => {
    const { client, lister } = listerOf();
    client.keys.set("lock:a", { value: "v", pttlMs: -1 });
    client.scanBuffer = async () => {
      throw new Error("connection closed");
    };
    await expect(lister.list("start")).rejects.toThrow("connection closed");
    expect(lister.progress).toBeNull();
    expect(lister.last).toBeNull();
  });
});
