/**
 * A node's watch, its parts together, on an in-memory node and a fake clock: listed then watched,
 * gaps healed by relists (a dropped subscription, an overflow, a restart), a missed heartbeat, a
 * paused node, polling without notifications. The same behaviour against real Redis servers:
 * test/server/live-index.test.ts and node-down.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Budget } from "@/lib/server/locks/watch/io/budget";
import type { RemovalCause } from "@/lib/server/locks/watch/store/node-store";
import { NodeWatch } from "@/lib/server/locks/watch/node/node-watch";
import { FakeClock } from "./fake-clock";
import { FakeNode } from "./fake-node";

const unlimited: Budget = {
  perS: 10_000,
  burst: 1_000,
  take: async () => {},
  bytes: { perS: 1e9, burst: 1e8, take: async () => {} },
};

const watches: NodeWatch[] = [];
afterEach(async () => {
  await Promise.all(watches.splice(0).map((watch) => watch.close()));
});

function watchOf(options: { notifyFlags?: string } = {}) {
  const clock = new FakeClock();
  const node = new FakeNode();
  if (options.notifyFlags !== undefined) node.commands.notifyFlags = options.notifyFlags;
  const changes: Array<[string, string | null, RemovalCause | undefined]> = [];
  const gapsSinceMs: number[] = [];
  const watch = new NodeWatch({
    node: { address: "fake:6379", connections: node.connections },
    patterns: ["lock:*"],
    budget: unlimited,
    resyncIntervalMs: 60_000,
    enableKeyspaceEvents: false,
    nodeTimeoutMs: 1_500,
    maxKeys: 1_000,
    onChange: (key, state, cause) => changes.push([key, state?.value ?? null, cause]),
    shared: (name, value) => ({ name, value }),
    onReachability: () => {},
    onGap: (sinceMs) => gapsSinceMs.push(sinceMs),
    clock,
  });
  watches.push(watch);
  /** Listings run so far (each reads INFO once). */
  const listings = () => node.commands.sent.filter((command) => command === "INFO").length;
  return { clock, node, watch, changes, gapsSinceMs, listings };
}

describe("a node's watch", () => {
  it("lists the node once connected, then follows it by notifications", async () => {
    const { clock, node, watch, changes, listings } = watchOf();
    node.commands.keys.set("lock:a", { value: "v1", pttlMs: 30_000 });
    expect(watch.mode()).toBe("down");
    await clock.advance(0);
    expect(watch.mode()).toBe("watching");
    expect(watch.complete).toBe(true);
    expect(watch.status()).toMatchObject({ asOf: clock.now(), listedAt: clock.now(), lockKeys: 1 });
    node.set("lock:b", "v2");
    node.del("lock:a");
    await clock.advance(10); // the change queue's gathering
    expect(changes).toEqual([
      ["lock:a", "v1", undefined],
      ["lock:b", "v2", undefined],
      ["lock:a", null, "deleted"],
    ]);
    expect(listings()).toBe(1);
  });

  it("moves its as-of on with each answered heartbeat", async () => {
    const { clock, watch } = watchOf();
    await clock.advance(0);
    const listedAtMs = clock.now();
    await clock.advance(1_000);
    expect(watch.status().asOf).toBe(listedAtMs + 1_000);
  });

  it("relists after a dropped subscription, and shows what changed meanwhile", async () => {
    const { clock, node, watch, gapsSinceMs, listings } = watchOf();
    await clock.advance(0);
    const droppedAtMs = clock.now();
    node.subscriber.drop();
    expect(watch.mode()).toBe("listing"); // a gap: the index may lack changes from now
    node.commands.keys.set("lock:missed", { value: "v", pttlMs: 30_000 }); // no notification reaches it
    await clock.advance(500);
    node.subscriber.reconnect();
    await clock.advance(0);
    expect(listings()).toBe(2);
    expect(gapsSinceMs.at(-1)).toBe(droppedAtMs);
    expect(watch.get("lock:missed")?.value).toBe("v");
    expect(watch.mode()).toBe("watching");
  });

  it("keeps its as-of while heartbeats go unanswered, without relisting", async () => {
    const { clock, node, watch, listings } = watchOf();
    await clock.advance(0);
    const listedAtMs = clock.now();
    node.subscriber.pingAnswers = false; // notifications may be stuck: the index is no fresher
    await clock.advance(5_000);
    expect(watch.status().asOf).toBe(listedAtMs);
    expect(watch.mode()).toBe("watching");
    expect(listings()).toBe(1);
  });

  it("is down while the node leaves PINGs unanswered, and back without a relist", async () => {
    const { clock, node, watch, listings } = watchOf();
    node.commands.keys.set("lock:a", { value: "v1", pttlMs: 30_000 });
    await clock.advance(0);
    node.commands.pause();
    await clock.advance(2_000); // the PING sent at 1 s is unanswered, not yet past the 1.5 s timeout
    expect(watch.mode()).toBe("watching");
    await clock.advance(1_000);
    expect(watch.mode()).toBe("down");
    expect(watch.read("lock:a")).toBeUndefined(); // unknown, not absent
    expect(watch.get("lock:a")?.value).toBe("v1"); // what the index last knew
    node.commands.resume();
    await clock.advance(0);
    expect(watch.mode()).toBe("watching");
    expect(watch.read("lock:a")?.value).toBe("v1");
    expect(listings()).toBe(1); // nothing was lost: notifications waited in the socket
  });

  it("relists when more changes arrive than the queue holds (overflow)", async () => {
    const { clock, node, watch, listings, gapsSinceMs } = watchOf();
    await clock.advance(0);
    for (let index = 0; index <= 100_000; index += 1)
      node.subscriber.publish(`lock:${index}`, "set");
    expect(watch.mode()).toBe("listing");
    await clock.advance(10);
    expect(listings()).toBe(2);
    expect(gapsSinceMs).toHaveLength(2);
    expect(watch.mode()).toBe("watching");
  });

  it("relists from nothing after a restart: keys it lost leave the index", async () => {
    const { clock, node, watch, changes } = watchOf();
    node.commands.keys.set("lock:a", { value: "v1", pttlMs: 30_000 });
    await clock.advance(0);
    node.restart();
    node.commands.keys.set("lock:new", { value: "v2", pttlMs: 30_000 });
    await clock.advance(0);
    expect(changes).toEqual([
      ["lock:a", "v1", undefined],
      ["lock:a", null, "unknown"],
      ["lock:new", "v2", undefined],
    ]);
    expect(watch.mode()).toBe("watching");
  });

  it("forgets everything at once when the run_id changes under the same connection", async () => {
    const { clock, node, watch, changes, gapsSinceMs } = watchOf();
    node.commands.keys.set("lock:a", { value: "v1", pttlMs: 30_000 });
    await clock.advance(0);
    node.commands.runId = "run2"; // failed over behind a proxy: same connection, another server
    await clock.advance(60_000); // the periodic resync finds it
    expect(changes).toEqual([
      ["lock:a", "v1", undefined],
      ["lock:a", null, "unknown"],
      ["lock:a", "v1", undefined],
    ]);
    expect(gapsSinceMs).toHaveLength(2);
    expect(watch.mode()).toBe("watching");
  });

  it("polls a node without notifications, a pass at most every second, and says why", async () => {
    const { clock, node, watch, listings } = watchOf({ notifyFlags: "" });
    await clock.advance(0);
    expect(watch.mode()).toBe("polling");
    expect(watch.status().reason).toMatch(/^notify-keyspace-events is "", lacking K/);
    expect(node.subscriber.patterns).toEqual([]);
    node.commands.keys.set("lock:a", { value: "v1", pttlMs: 30_000 });
    expect(watch.get("lock:a")).toBeUndefined();
    await clock.advance(999);
    expect(listings()).toBe(1);
    await clock.advance(1);
    expect(listings()).toBe(2);
    expect(watch.get("lock:a")?.value).toBe("v1");
    expect(watch.status().asOf).toBe(clock.now());
  });

  it("is watched once the node's notifications are turned on", async () => {
    const { clock, node, watch } = watchOf({ notifyFlags: "" });
    await clock.advance(0);
    node.commands.notifyFlags = "KEA";
    await clock.advance(1_000); // the next pass subscribes, and relists
    expect(watch.mode()).toBe("watching");
    expect(node.subscriber.patterns).toHaveLength(3);
  });
});
