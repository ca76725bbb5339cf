/**
 * Auxiliary keys (fencing counters, waiters) hash to their resource's Redis Cluster slot whatever
 * its name, so one script can touch both on a cluster node. Checked against a real
 * `--cluster-enabled` redis-server: CLUSTER KEYSLOT, and a script that touches every key.
 */
import { Cluster } from "ioredis";
import { describe, expect, it } from "vitest";
import Redlock, {
  auxiliaryKeyOf,
  fenceKey,
  hasHashTag,
  waitersKey,
} from "@redlock-console/redlock";
import { useSingleNodeCluster } from "../cluster";

const cluster = useSingleNodeCluster();

/** Names of every shape: tagged, plain, and the rare ones a plain wrap cannot keep in their slot. */
const NAMES = [
  "{orders}:42", // a hash tag: kept
  "orders:42", // none: wrapped whole
  "a{b", // a "{" without "}": still wrapped whole
  "a{}b", // an empty tag is no tag, and the "}" defeats a wrap
  "a}b",
  "{}x}",
  "}",
  "", // nothing to wrap
  "x{y}z{w}", // the first tag counts
  "zürich:東京:🔒",
];

const slot = (key: string | Buffer) => cluster().client.cluster("KEYSLOT", key) as Promise<number>;

describe("auxiliary keys", () => {
  it("hash to their resource's cluster slot, for names of every shape and binary names", async () => {
    const binary = Buffer.from([0x6f, 0xff, 0x7d, 0x00, 0x7b]); // "o", 0xff, "}", NUL, "{"
    for (const name of [...NAMES, binary]) {
      const resourceSlot = await slot(name);
      const fence = typeof name === "string" ? fenceKey(name) : fenceKey(name);
      const waiters = typeof name === "string" ? waitersKey(name) : waitersKey(name);
      expect(await slot(fence), `fence key of ${String(name)}`).toBe(resourceSlot);
      expect(await slot(waiters), `waiters key of ${String(name)}`).toBe(resourceSlot);
      // One script may touch all three on a cluster node: no CROSSSLOT.
      const touched = await cluster().client.eval(
        "redis.call('get', KEYS[1]); redis.call('get', KEYS[2]); redis.call('exists', KEYS[3]); return 1",
        3,
        name,
        fence,
        waiters,
      );
      expect(touched).toBe(1);
    }
  });

  it("keep a tagged name as 1.x did, wrap a plain one, and give the rare rest a computed tag", () => {
    expect(fenceKey("{orders}:42")).toBe("redlock:fence:{orders}:42");
    expect(waitersKey("orders:42")).toBe("redlock:{orders:42}:waiters");
    expect(fenceKey("a}b")).toMatch(/^redlock:\{[0-9a-z]+\}:fence:a\}b$/);
    expect(hasHashTag("a{}b")).toBe(false);
    expect(hasHashTag("x{y}")).toBe(true);
  });

  it("map back to exactly one resource and kind, so no two resources share one", () => {
    const names = [...NAMES, "x", "{x}", "redlock:{x}:fence"];
    const seen = new Map<string, string>();
    for (const name of names) {
      for (const [kind, key] of [
        ["fence", fenceKey(name)],
        ["waiters", waitersKey(name)],
      ] as const) {
        expect(auxiliaryKeyOf(key)).toEqual({ kind, resource: name });
        expect(seen.get(key), `${key} is shared`).toBeUndefined();
        seen.set(key, name);
      }
    }
    expect(auxiliaryKeyOf("orders:42")).toBeUndefined();
    expect(auxiliaryKeyOf("redlock:{unterminated")).toBeUndefined();
    expect(auxiliaryKeyOf("redlock:owner:orders:42")).toEqual({
      kind: "owner",
      resource: "orders:42",
    });
  });

  it("let the library lock plain names with fencing and waiters on a cluster node at its defaults", async () => {
    const client = new Cluster([{ host: "127.0.0.1", port: cluster().port }]);
    await new Promise((resolve) => client.once("ready", resolve)); // slots discovered
    try {
      // A retry window of seconds, not tens of ms: the release below may wait behind a loaded machine.
      const redlock = new Redlock([client], { fencing: true, retryCount: 100, retryDelay: 20 });
      const first = await redlock.acquire(["orders:42"], 5_000);
      expect(first.fencingToken).toBe(1);
      // A contender retries (and lists itself as a waiter) until the first lets go.
      const second = redlock.acquire(["orders:42"], 5_000);
      setTimeout(() => void first.release(), 30);
      const next = await second;
      expect(next.fencingToken).toBe(2);
      const [seen] = await redlock.inspect(["orders:42"]);
      expect(seen).toMatchObject({ state: "held", value: next.value });
      expect(seen!.owner?.labels.pid).toBe(String(process.pid));
      await next.release();
      // A lock on resources in different slots fails cleanly: the keys cannot meet in one script.
      await expect(
        redlock.acquire(["orders:42", "orders:43"], 5_000, { retryCount: 0 }),
      ).rejects.toThrow();
    } finally {
      client.disconnect();
    }
  });
});
