/**
 * A node's watch reads what may be a lock, not every changed key (shape-table.ts wired into
 * node-watch.ts), on a scripted node and a clock that moves only when told.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Budget } from "@/lib/server/locks/watch/io/budget";
import { NodeWatch } from "@/lib/server/locks/watch/node/node-watch";
import { FakeClock } from "./fake-clock";
import { FakeNode } from "./fake-node";

const unlimited: Budget = {
  perS: 1_000_000,
  burst: 100_000,
  take: async () => {},
  bytes: { perS: 1e9, burst: 1e8, take: async () => {} },
};
const watches: NodeWatch[] = [];
afterEach(async () => {
  await Promise.all(watches.splice(0).map((watch) => watch.close()));
});

function watchOf(sampleReadsPerS?: number) {
  const clock = new FakeClock();
  const node = new FakeNode();
  // Values starting "lock" are locks; anything else is an application's value.
  node.commands.isLock = (value) => value.startsWith("lock");
  const watch = new NodeWatch({
    node: { address: "fake:6379", connections: node.connections },
    patterns: ["*"],
    budget: unlimited,
    resyncIntervalMs: 60_000,
    enableKeyspaceEvents: false,
    shapes: { minReadsToSkip: 20, probeIntervalMs: 1_000, sampleReadsPerS },
    nodeTimeoutMs: 1_500,
    maxKeys: 1_000,
    onChange: () => {},
    shared: (name, value) => ({ name, value }),
    onReachability: () => {},
    clock,
  });
  watches.push(watch);
  /** Every key name read so far, in order. */
  const reads = () => node.commands.read.flat();
  return { clock, node, watch, reads };
}

describe("reads that follow lock traffic", () => {
  it("stops reading `orders:N:view` cache entries after many reads without a lock, and keeps reading the `orders:N` locks beside them", async () => {
    const { clock, node, watch, reads } = watchOf();
    await clock.advance(0);
    node.set("orders:1", "lock-a");
    for (let id = 0; id < 20; id += 1) node.set(`orders:${id}:view`, "cached page");
    await clock.advance(10);
    expect(reads()).toHaveLength(21);
    for (let id = 20; id < 40; id += 1) node.set(`orders:${id}:view`, "cached page");
    node.set("orders:2", "lock-b");
    await clock.advance(10);
    expect(reads().slice(21)).toEqual(["orders:2"]);
    expect(watch.get("orders:2")?.value).toBe("lock-b");
    expect(watch.status().eventReads).toMatchObject({
      skippedShapes: [{ shape: "orders:*:view", reads: 20, locksFound: 0 }],
      lockShapes: [{ shape: "orders:*", locksFound: 2 }],
      // Every key given an expiry (none went unread) is read: a lock shows at once, not by the resync.
      expirySamples: { readsPerS: 0, readsPerSMax: 500, unreadPerS: 0 },
      lateByAtMostMs: 1_000,
      suggestion: { patterns: ["orders:*"] },
    });
  });

  it("does not read an expiry or a deletion of a key it does not hold, and does read one it holds", async () => {
    const { clock, node, watch, reads } = watchOf();
    node.commands.keys.set("orders:1", { value: "lock-a", pttlMs: 30_000 });
    node.commands.keys.set("cache:1", { value: "page", pttlMs: 30_000 });
    await clock.advance(0);
    const listed = reads().length;
    node.expire("cache:1");
    node.del("orders:1");
    await clock.advance(10);
    expect(reads().slice(listed)).toEqual(["orders:1"]);
    expect(watch.get("orders:1")).toBeUndefined();
  });

  it("reads again a key deleted while its read was on the way back, though the index did not hold it yet", async () => {
    const { clock, node, watch } = watchOf();
    node.commands.keys.set("orders:1", { value: "lock-a", pttlMs: 30_000 });
    node.commands.replies = [];
    await clock.advance(0); // the listing read orders:1 (a lock); its reply has not arrived
    node.del("orders:1"); // the notification arrives first
    node.commands.answerReads();
    await clock.advance(10);
    expect(watch.get("orders:1")).toBeUndefined();
  });

  it("finds a lock under a skipped shape by its sample read, then reads the shape on every change", async () => {
    const { clock, node, watch, reads } = watchOf();
    await clock.advance(0);
    for (let id = 0; id < 20; id += 1) node.set(`jobs:${id}`, "queued");
    await clock.advance(10);
    node.set("jobs:100", "lock-x"); // skipped: no sample due yet
    await clock.advance(10);
    expect(watch.get("jobs:100")).toBeUndefined();
    await clock.advance(1_000);
    node.set("jobs:101", "lock-y"); // the shape's sample
    node.set("jobs:102", "lock-z"); // skipped still: the sample has not found the lock yet
    await clock.advance(10);
    expect(watch.get("jobs:101")?.value).toBe("lock-y");
    node.set("jobs:103", "lock-w");
    await clock.advance(10);
    expect(watch.get("jobs:103")?.value).toBe("lock-w");
    expect(reads()).not.toContain("jobs:102");
  });

  it("finds a lock under a skipped shape by the resync, at worst one resync interval late", async () => {
    const { clock, node, watch } = watchOf();
    await clock.advance(0);
    for (let id = 0; id < 20; id += 1) node.set(`jobs:${id}`, "queued");
    await clock.advance(1_500);
    node.set("jobs:200", "queued"); // the sample, finding no lock
    node.set("jobs:100", "lock-x"); // skipped
    await clock.advance(10);
    expect(watch.get("jobs:100")).toBeUndefined();
    await clock.advance(60_000); // the resync lists it
    expect(watch.get("jobs:100")?.value).toBe("lock-x");
    expect(watch.status().eventReads?.skippedShapeCount).toBe(0);
  });

  it("reads every key of a skipped shape given an expiry, up to the bound per second; what goes unread beyond it is counted and the bound falls back to the resync", async () => {
    const { clock, node, watch, reads } = watchOf(5);
    await clock.advance(0);
    for (let id = 0; id < 20; id += 1) node.set(`jobs:${id}`, "queued");
    await clock.advance(1_500);
    node.set("jobs:200", "queued"); // the shape's one probe a second, finding no lock
    await clock.advance(10);
    /** `SET name value PX …` as Redis tells it: `set`, then `expire`. */
    const setWithExpiry = (name: string, value: string) => {
      node.commands.keys.set(name, { value, pttlMs: 30_000 });
      node.subscriber.publish(name, "set");
      node.subscriber.publish(name, "expire");
    };
    const before = reads().length;
    setWithExpiry("jobs:300", "queued");
    setWithExpiry("jobs:77", "lock-x"); // a lock among the application's keys: read at once
    await clock.advance(10);
    expect(watch.get("jobs:77")?.value).toBe("lock-x");
    expect(reads().slice(before).sort()).toEqual(["jobs:300", "jobs:77"]);
    // The shape holds locks now: read on every change. Another skipped shape meets the bound.
    for (let id = 0; id < 20; id += 1) node.set(`cache:${id}:page`, "html");
    await clock.advance(1_500);
    node.set("cache:999:page", "html"); // its probe
    await clock.advance(10);
    const beforeBound = reads().length;
    for (let id = 100; id < 108; id += 1) setWithExpiry(`cache:${id}:page`, "html");
    await clock.advance(10);
    expect(reads().length - beforeBound).toBe(5);
    expect(watch.status().eventReads).toMatchObject({
      skippedShapes: [{ shape: "cache:*:page" }],
      expirySamples: { readsPerSMax: 5 },
      lateByAtMostMs: 60_000,
    });
    expect(watch.status().eventReads!.expirySamples.unreadPerS).toBeGreaterThan(0);
  });
});
