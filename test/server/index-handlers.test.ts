/**
 * The live index's registered handlers (index-handlers.ts): a handler that busy-waits lags behind
 * the index without delaying it (real masters); an ordered queue that overflows drops what it held
 * and says so with one gap dated at the oldest change lost; a coalesced queue keeps one change per
 * key whose "facts before" are the first one's; a handler that throws does not stop its queue.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  HandlerQueue,
  type IndexChange,
  type IndexHandler,
} from "@/lib/server/locks/rows/index-handlers";
import type { RowFacts } from "@/lib/server/locks/rows/ownership-figures";
import { Reseed } from "@/lib/server/timeline/reseed";
import { connect, disconnect, sharedUrls, sleep } from "../masters";
import { startTestConsole, type TestConsole } from "./helpers";

const busyWait = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

const facts = (waiting: number): RowFacts => ({
  heldSinceMs: null,
  noTtl: false,
  waiting,
  waitSinceMs: null,
});

const changeOf = (key: string, atMs: number, before = facts(0), after = facts(0)): IndexChange => ({
  key,
  reads: [],
  state: "held",
  nodeIndex: 0,
  cause: undefined,
  factsBefore: before,
  factsAfter: after,
  atMs,
  seq: atMs,
  complete: true,
});

/** A queue on `handler` for an index that is always whole. */
const queueOf = (handler: IndexHandler, options: ConstructorParameters<typeof HandlerQueue>[1]) =>
  new HandlerQueue(
    handler,
    options,
    () => true,
    () => undefined,
  );

describe("a slow handler on real masters", () => {
  let tc: TestConsole;
  let clients: Redis[];

  beforeAll(async () => {
    tc = startTestConsole(sharedUrls());
    clients = connect(sharedUrls());
    await tc.sync();
  });

  afterAll(async () => {
    await tc.close();
    await disconnect(clients);
  });

  it("lags behind the index, which keeps serving fresh reads meanwhile", async () => {
    const HANDLER_MS = 20;
    let delivered = 0;
    const registration = tc.ctx.index.addHandler({
      change: () => {
        busyWait(HANDLER_MS);
        delivered += 1;
      },
    });
    const keys = Array.from({ length: 20 }, (_, i) => `${tc.prefix}slow-${i}`);
    const marker = `${tc.prefix}slow-marker`;
    const startedAt = performance.now();
    await Promise.all(
      clients.map(async (client) => {
        for (const key of keys) await client.set(key, "a".repeat(40), "PX", 60_000);
        await client.set(marker, "b".repeat(40), "PX", 60_000);
      }),
    );
    // 21 keys on 5 nodes: 105 changes, ~2.1 s of handler work queued.
    while (tc.ctx.index.reads(marker).filter(Boolean).length < 5) {
      if (performance.now() - startedAt > 5_000)
        throw new Error("the marker never reached the index");
      await sleep(2);
    }
    const seenAfterMs = performance.now() - startedAt;
    const deliveredWhenSeen = delivered;
    // Called inside the change callback (the old observer slot), the handler would have been told
    // of every earlier change before the marker could reach the index.
    expect(deliveredWhenSeen).toBeLessThan(105 / 2);
    expect(seenAfterMs).toBeLessThan(105 * HANDLER_MS * 0.5);
    await tc.sync();
    // Every change by now (more if a node was relisted meanwhile, re-folding its rows).
    expect(delivered).toBeGreaterThanOrEqual(105);
    expect(registration.hasSynced()).toBe(true);
    expect(registration.dropped).toBe(0);
    const deliveredBeforeRemove = delivered;
    registration.remove();
    await Promise.all(clients.map((client) => client.del(marker)));
    await tc.sync();
    expect(delivered).toBe(deliveredBeforeRemove);
  });
});

describe("hasSynced", () => {
  it("turns true once the handler has caught up with a whole index, and stays so", async () => {
    let complete = false;
    const queue = new HandlerQueue(
      {},
      {},
      () => complete,
      () => undefined,
    );
    queue.push({ kind: "tick", atMs: 1, complete: true });
    await queue.drained();
    expect(queue.hasSynced()).toBe(false);
    complete = true;
    queue.push({ kind: "tick", atMs: 2, complete: true });
    expect(queue.hasSynced()).toBe(false);
    await queue.drained();
    expect(queue.hasSynced()).toBe(true);
    complete = false;
    queue.push({ kind: "tick", atMs: 3, complete: true });
    await queue.drained();
    expect(queue.hasSynced()).toBe(true);
  });
});

describe("backpressure", () => {
  it("an ordered queue that overflows drops what it held and says one gap from the oldest change lost", async () => {
    const heard: string[] = [];
    const queue = queueOf(
      {
        change: (change) => heard.push(`change ${change.key}`),
        gap: (sinceMs) => heard.push(`gap ${sinceMs}`),
      },
      { queue: "ordered", maxQueued: 10 },
    );
    // Pushed in one turn: nothing is delivered until the queue drains on setImmediate.
    for (let i = 1; i <= 15; i += 1)
      queue.push({ kind: "change", change: changeOf(`k${i}`, 1_000 + i) });
    expect(heard).toEqual([]);
    await queue.drained();
    expect(heard).toEqual(["gap 1001", "change k12", "change k13", "change k14", "change k15"]);
    expect(queue.dropped).toBe(11);
    expect(queue.hasSynced()).toBe(true);
  });

  it("a coalesced queue keeps each key's latest change with the facts from before its first", async () => {
    const heard: IndexChange[] = [];
    let ticks = 0;
    const queue = queueOf(
      { change: (change) => heard.push(change), tick: () => (ticks += 1) },
      { queue: "coalesced" },
    );
    queue.push({ kind: "change", change: changeOf("a", 1, facts(0), facts(1)) });
    queue.push({ kind: "tick", atMs: 2, complete: true });
    queue.push({ kind: "change", change: changeOf("b", 3, facts(0), facts(4)) });
    queue.push({ kind: "change", change: changeOf("a", 4, facts(1), facts(2)) });
    queue.push({ kind: "tick", atMs: 5, complete: true });
    await queue.drained();
    expect(heard.map((change) => [change.key, change.atMs])).toEqual([
      ["b", 3],
      ["a", 4],
    ]);
    expect(heard[1]!.factsBefore).toEqual(facts(0));
    expect(heard[1]!.factsAfter).toEqual(facts(2));
    expect(ticks).toBe(1);
    expect(queue.dropped).toBe(0);
  });

  it("a handler that throws is logged and its next change still arrives; a removed one hears nothing", async () => {
    const heard: string[] = [];
    const queue = queueOf(
      {
        change: (change) => {
          if (change.key === "bad") throw new Error("handler bug");
          heard.push(change.key);
        },
      },
      {},
    );
    queue.push({ kind: "change", change: changeOf("bad", 1) });
    queue.push({ kind: "change", change: changeOf("good", 2) });
    await queue.drained();
    expect(heard).toEqual(["good"]);
    queue.push({ kind: "change", change: changeOf("late", 3) });
    queue.remove();
    await sleep(5);
    expect(heard).toEqual(["good"]);
  });
});

describe("the timeline's re-read and its queue", () => {
  it("a change already in the index when the re-read read its key is not folded again", () => {
    const index = { quorumSize: 3, changeCount: 40, keysFrom: () => ["b", "d"], reads: () => [] };
    const reseed = new Reseed();
    reseed.start(index, new Map(), 0);
    // Read after 40 changes: every key, listed or absent then ("a", "c", "z"), is at 40.
    for (const key of ["a", "b", "c", "d", "z"]) expect(reseed.saw(key, 40), key).toBe(true);
    // Changes come in order: once a newer one arrives, none to come was seen.
    expect(reseed.saw("b", 41)).toBe(false);
    expect(reseed.saw("b", 40)).toBe(false);
  });
});
