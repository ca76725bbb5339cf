/** The watcher (the informer's watch): notifications checked, subscriptions, heartbeat, parsing. */
import { describe, expect, it } from "vitest";
import { Watcher } from "@/lib/server/locks/watch/events/watcher";
import { FakeClock } from "./fake-clock";
import { FakeCommands, FakeSubscriber } from "./fake-node";

function watcherOf(options: { enable?: boolean } = {}) {
  const clock = new FakeClock();
  const config = new FakeCommands();
  const subscriber = new FakeSubscriber();
  const notified: Array<[string, string | null]> = [];
  const events: string[] = [];
  const watcher = new Watcher({
    subscriber,
    config,
    address: "fake:6379",
    db: 0,
    patterns: ["lock:*"],
    enableKeyspaceEvents: options.enable ?? false,
    clock,
    signal: new AbortController().signal,
    onNotified: (name, key, event) => {
      expect(key.toString("latin1")).toBe(name);
      notified.push([name, event]);
    },
    onLost: () => events.push("lost"),
    onReady: () => events.push("ready"),
    onChecked: (on) => events.push(on ? "on" : "off"),
  });
  return { clock, config, subscriber, watcher, notified, events };
}

describe("the watcher", () => {
  it("subscribes to the lock patterns' and their auxiliary keys' keyspace channels before a listing", async () => {
    const { subscriber, watcher, events } = watcherOf();
    expect(await watcher.prepare()).toBe(true);
    expect(subscriber.patterns).toEqual([
      "__keyspace@0__:lock:*",
      "__keyspace@0__:redlock:{lock:*}:*",
      "__keyspace@0__:redlock:*:lock:*",
    ]);
    expect(watcher.subscribed).toBe(true);
    expect(events).toEqual(["on", "ready"]);
    expect(await watcher.prepare()).toBe(false); // subscribed already: nothing new
  });

  it("names the key of each notification, with its event", async () => {
    const { subscriber, watcher, notified } = watcherOf();
    await watcher.prepare();
    subscriber.publish("lock:a", "set");
    subscriber.publish("lock:a", "del");
    subscriber.publish("other:b", "set"); // not subscribed to
    expect(notified).toEqual([
      ["lock:a", "set"],
      ["lock:a", "del"],
    ]);
  });

  it("maps the library's waiters and owner keys to their resource, and ignores its fence keys", async () => {
    const { subscriber, watcher, notified } = watcherOf();
    await watcher.prepare();
    subscriber.publish("redlock:waiters:lock:a", "zadd");
    subscriber.publish("redlock:owner:lock:b", "hset");
    subscriber.publish("redlock:fence:lock:c", "incr");
    subscriber.publish("redlock:waiters:job:d", "zadd"); // a resource outside the patterns
    expect(notified).toEqual([
      ["lock:a", null],
      ["lock:b", null],
    ]);
  });

  it("is polled, and says why, when the node's notifications lack flags", async () => {
    const { config, subscriber, watcher, events } = watcherOf();
    config.notifyFlags = "Kx";
    expect(await watcher.prepare()).toBe(false);
    expect(watcher.notifications).toBe("off");
    expect(watcher.pollReason).toMatch(/^notify-keyspace-events is "Kx", lacking g\$hze/);
    expect(subscriber.patterns).toEqual([]);
    expect(events).toEqual(["off"]);
  });

  it("turns notifications on when allowed", async () => {
    const { config, watcher } = watcherOf({ enable: true });
    config.notifyFlags = "Kx";
    expect(await watcher.prepare()).toBe(true);
    expect(config.notifyFlags).toBe("Kxg$hze");
    expect(watcher.pollReason).toBeNull();
  });

  it("is polled when CONFIG is unavailable, and drops a subscription it had", async () => {
    const { config, subscriber, watcher } = watcherOf();
    await watcher.prepare();
    config.configFails = true;
    expect(await watcher.prepare()).toBe(false);
    expect(watcher.pollReason).toMatch(/^CONFIG GET notify-keyspace-events failed/);
    expect(watcher.subscribed).toBe(false);
    await Promise.resolve();
    expect(subscriber.patterns).toEqual([]);
  });

  it("tells of a dropped subscription, and of the subscriber's return", async () => {
    const { subscriber, watcher, events } = watcherOf();
    subscriber.drop(); // not subscribed yet: nothing lost
    subscriber.reconnect();
    expect(events).toEqual(["ready"]);
    await watcher.prepare();
    events.length = 0;
    subscriber.drop();
    expect(watcher.subscribed).toBe(false);
    subscriber.reconnect();
    expect(events).toEqual(["lost", "ready"]);
  });

  it("fails a subscription whose connection is not ready within 5 s", async () => {
    const { clock, subscriber, watcher } = watcherOf();
    subscriber.connect = async () => {}; // connecting, never ready
    const prepared = watcher.prepare();
    const failed = expect(prepared).rejects.toThrow(/aborted/);
    await clock.advance(5_000);
    await failed;
    expect(watcher.subscribed).toBe(false);
  });

  it("heartbeats: resolves to when its PING was sent once answered, null when it cannot be", async () => {
    const { clock, subscriber, watcher } = watcherOf();
    expect(await watcher.heartbeat()).toBeNull(); // not connected
    await watcher.prepare();
    expect(await watcher.heartbeat()).toBe(clock.now());
    subscriber.ping = () => Promise.reject(new Error("closed"));
    expect(await watcher.heartbeat()).toBeNull();
  });
});
