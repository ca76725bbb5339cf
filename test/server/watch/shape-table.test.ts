/**
 * The shape table (shape-table.ts) with a clock that moves only when told: which changed keys are
 * read, how a shape comes to be skipped and read again, the sample reads, the cap on memory, and
 * the LOCK_MATCH suggestion with what it would save (lock-match-hint.ts).
 */
import { describe, expect, it } from "vitest";
import { legacyOwnerKey, revokeKey, waitersKey } from "@redlock-console/redlock";
import { compileGlob } from "@/lib/server/locks/read/glob";
import { suggestLockMatch } from "@/lib/server/locks/watch/events/lock-match-hint";
import { ShapeTable } from "@/lib/server/locks/watch/events/shape-table";
import { PatternCounts, subscriptionPatterns } from "@/lib/server/locks/watch/events/subscriptions";

function tableOf(options: { minReadsToSkip?: number; maxShapes?: number } = {}) {
  const clock = { nowMs: 1_700_000_000_000 };
  const table = new ShapeTable({
    nowMs: () => clock.nowMs,
    minReadsToSkip: options.minReadsToSkip ?? 100,
    probeIntervalMs: 1_000,
    maxShapes: options.maxShapes ?? 1_000,
  });
  /** A notification for `name`, read when the table says so, with what the read finds. */
  const notify = (name: string, isLock = false, event = "set", held = false) => {
    const read = table.shouldRead(name, event, held);
    if (read) table.recordRead(name, isLock);
    return read;
  };
  return { clock, table, notify };
}

describe("which changed keys are read", () => {
  it("skips a shape read many times without a lock, and keeps reading its neighbour that holds locks", () => {
    const { table, notify } = tableOf();
    notify("orders:1", true);
    for (let id = 0; id < 100; id += 1) expect(notify(`orders:${id}:view`)).toBe(true);
    expect(notify("orders:100:view")).toBe(false);
    expect(table.skipped("orders:5:view")).toBe(true);
    expect(notify("orders:42")).toBe(true); // the lock shape: read on every notification
    expect(table.skipped("orders:42")).toBe(false);
  });

  it("reads a key the index holds (or is about to read) whatever its shape", () => {
    const { table, notify } = tableOf();
    for (let id = 0; id < 100; id += 1) notify(`cache:${id}`);
    expect(table.skipped("cache:1")).toBe(true);
    expect(table.shouldRead("cache:1", "del", true)).toBe(true);
    expect(table.shouldRead("cache:1", "set", true)).toBe(true);
  });

  it("never reads a key for an event that cannot leave a lock, unless the index holds it", () => {
    const { table } = tableOf();
    expect(table.shouldRead("orders:1", "expired", false)).toBe(false);
    expect(table.shouldRead("orders:1", "del", false)).toBe(false);
    expect(table.shouldRead("orders:1", "expired", true)).toBe(true);
    expect(table.shouldRead("orders:1", "set", false)).toBe(true);
  });

  it("still reads one key of a skipped shape per second: a shape that starts holding locks is read again at once", () => {
    const { clock, table, notify } = tableOf();
    for (let id = 0; id < 100; id += 1) notify(`jobs:${id}`);
    clock.nowMs += 999;
    expect(notify("jobs:500", true)).toBe(false);
    clock.nowMs += 1;
    expect(notify("jobs:501", true)).toBe(true); // the sample, and it finds a lock
    expect(table.skipped("jobs:1")).toBe(false);
    expect(notify("jobs:502")).toBe(true);
  });

  it("reads a skipped shape again at once when a listing (the resync) finds a lock under it", () => {
    const { table, notify } = tableOf();
    for (let id = 0; id < 100; id += 1) notify(`jobs:${id}`);
    expect(notify("jobs:100")).toBe(false);
    table.recordRead("jobs:7", true); // the resync's read
    expect(notify("jobs:101")).toBe(true);
  });

  it("holds at most maxShapes shapes: beyond them keys are always read, and idle shapes make room", () => {
    const { clock, table, notify } = tableOf({ maxShapes: 3 });
    for (const prefix of ["a", "b", "c"])
      for (let id = 0; id < 100; id += 1) notify(`${prefix}:${id}`);
    expect(table.size).toBe(3);
    expect(notify("d:1")).toBe(true);
    expect(table.size).toBe(3);
    expect(table.summary().untrackedReadsPerS).toBeGreaterThan(0);
    clock.nowMs += 11 * 60_000; // a, b, c idle for longer than the idle limit
    expect(notify("d:2")).toBe(true);
    expect(table.size).toBe(1);
  });
});

describe("what the table tells", () => {
  it("lists skipped shapes with the reads they no longer cost, and lock shapes", () => {
    const { clock, table, notify } = tableOf();
    notify("orders:1", true);
    for (let id = 0; id < 2_100; id += 1) {
      notify(`orders:${id}:view`);
      clock.nowMs += 5; // 200 notifications/s for 10.5 s
    }
    const summary = table.summary();
    expect(summary.skippedShapes.map((figures) => figures.shape)).toEqual(["orders:*:view"]);
    expect(summary.skippedShapeCount).toBe(1);
    expect(summary.skippedShapes[0]!.readsAvoidedPerS).toBeGreaterThan(150);
    expect(summary.lockShapes).toMatchObject([{ shape: "orders:*", locksFound: 1 }]);
  });

  it("suggests the lock shapes as LOCK_MATCH, with the notifications and reads it would save", () => {
    const { clock, table, notify } = tableOf();
    notify("orders:1", true);
    notify("jobs:1:run", true);
    for (let id = 0; id < 1_000; id += 1) {
      notify(`cache:${id}`);
      notify(`orders:${id}:view`);
      clock.nowMs += 10;
    }
    const suggestion = suggestLockMatch(table.entries(), ["*"], clock.nowMs);
    expect(suggestion?.patterns).toEqual(["jobs:*:run", "orders:*"]);
    // cache:* (100/s) falls outside; orders:*:view is matched by orders:* and saves nothing.
    expect(suggestion?.notificationsAvoidedPerS).toBeGreaterThan(80);
    expect(suggestion?.notificationsAvoidedPerS).toBeLessThan(120);
    expect(suggestLockMatch(table.entries(), ["jobs:*:run", "orders:*"], clock.nowMs)).toBeNull();
  });

  it("suggests nothing before a lock is found, or when a lock key has no fixed part", () => {
    const { table, notify } = tableOf();
    notify("cache:1");
    expect(suggestLockMatch(table.entries(), ["*"], 0)).toBeNull();
    notify("42", true);
    expect(suggestLockMatch(table.entries(), ["*"], 0)).toBeNull();
  });
});

describe("subscriptions", () => {
  it("covers the lock patterns and their resources' auxiliary keys, not sessions or other resources'", () => {
    expect(subscriptionPatterns(["*"])).toEqual(["*"]);
    expect(subscriptionPatterns(["orders:*", "*"])).toEqual(["*"]);
    const patterns = subscriptionPatterns(["orders:*"]);
    expect(patterns).toEqual(["orders:*", "redlock:{orders:*}:*", "redlock:*:orders:*"]);
    const covered = (key: string) => patterns.some((pattern) => compileGlob(pattern)(key));
    // The library's own names for every form of resource (plain, hash-tagged, odd, 1.x).
    for (const resource of ["orders:1", "orders:{7}:x", "orders:a}b"])
      for (const key of [waitersKey(resource), revokeKey(resource), legacyOwnerKey(resource)])
        expect(covered(key), key).toBe(true);
    expect(covered("redlock:session:{abc}")).toBe(false);
    expect(covered(waitersKey("jobs:1"))).toBe(false);
  });

  it("counts each pattern's notifications per second", () => {
    const counts = new PatternCounts("__keyspace@0__:");
    const nowMs = 1_000_000;
    for (let index = 0; index < 50; index += 1)
      counts.add(Buffer.from("__keyspace@0__:orders:*"), nowMs + index * 200);
    expect(counts.rates(["orders:*", "redlock:*"], nowMs + 10_000)).toEqual([
      { pattern: "orders:*", notificationsPerS: 5 },
      { pattern: "redlock:*", notificationsPerS: 0 },
    ]);
  });
});
