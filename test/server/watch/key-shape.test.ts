/** Key shapes and event classes (key-shape.ts): a table of cases, as the rule is written once. */
import { describe, expect, it } from "vitest";
import { eventMayCreateLock, keyShape } from "@/lib/server/locks/watch/events/key-shape";
import { compileGlob } from "@/lib/server/locks/read/glob";

describe("a key's shape", () => {
  it.each([
    ["orders:42", "orders:*"],
    ["orders:42:view", "orders:*:view"],
    ["orders:abc", "orders:abc"],
    ["session:550e8400-e29b-41d4-a716-446655440000", "session:*"],
    ["cache:user42:profile", "cache:*:profile"],
    ["cache/en/home.html", "cache/en/home.html"],
    ["token:QUJDREVGR0hJSktMTU5PUA", "token:*"],
    ["user_17_cart", "user_*_cart"],
    ["{orders}:42", "{orders}:*"],
    ["plain", "plain"],
    ["a::b", "a::b"],
    ["bin:\u00ff\u0001", "bin:*"],
  ])("%s has the shape %s", (name, shape) => {
    expect(keyShape(name)).toBe(shape);
  });

  it("tells a lock `orders:42` from its cache entries `orders:42:view`, which a prefix cannot", () => {
    expect(keyShape("orders:42")).not.toBe(keyShape("orders:42:view"));
    expect(keyShape("orders:7")).toBe(keyShape("orders:42"));
  });

  it("is a glob matching the key it came from, however long the key", () => {
    const names = [
      "orders:42:view",
      `a${":x".repeat(40)}`,
      `k:${"word".repeat(50)}:y`,
      "x?[y]*z:1",
    ];
    for (const name of names) {
      const shape = keyShape(name);
      expect(shape.length).toBeLessThanOrEqual(120);
      expect(compileGlob(shape)(name)).toBe(true);
    }
  });
});

describe("an event's class", () => {
  it.each([
    "set",
    "setrange",
    "append",
    "incrbyfloat",
    "hset",
    "hincrby",
    "expire",
    "rename_to",
    "restore",
    "some_future_event",
  ])("%s may leave a lock where there was none: the key is read", (event) =>
    expect(eventMayCreateLock(event)).toBe(true),
  );

  it.each([
    "del",
    "expired",
    "evicted",
    "rename_from",
    "persist",
    "incrby",
    "lpush",
    "sadd",
    "zadd",
    "xadd",
  ])("%s cannot: a key that held no lock is not read for it", (event) =>
    expect(eventMayCreateLock(event)).toBe(false),
  );
});
