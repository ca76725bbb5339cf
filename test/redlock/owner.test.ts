/**
 * Owner metadata (issue 10): `redlock:owner:<resource>` is written on each node by the acquire
 * script itself, lives exactly as long as the lock, follows its extensions and goes with it.
 * Private masters: the test counts Redis commands and lists every `redlock:` key.
 */
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Redlock, { type Client, OWNER_LABELS_MAX_BYTES, ownerKey } from "@redlock-console/redlock";
import { lockClients } from "../lock-clients";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";

const { masters } = usePrivateMasters(3);
let clients: Redis[];
let lockers: Client[];
let redlock: Redlock;

beforeAll(async () => {
  clients = connect(masters().urls);
  lockers = await lockClients(clients);
  redlock = new Redlock(lockers, {
    retryCount: 0,
    owner: { service: "billing", purpose: "instance" },
  });
});
afterAll(() => disconnect(clients));

const ownerEntries = (resource: string) =>
  Promise.all(clients.map((client) => client.hgetall(ownerKey(resource))));

/** `calls` per command from INFO commandstats summed over the nodes (a script's inner commands too). */
async function commandCalls(): Promise<Record<string, number>> {
  const calls: Record<string, number> = {};
  for (const info of await Promise.all(clients.map((client) => client.info("commandstats"))))
    for (const [, command, count] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
      calls[command!] = (calls[command!] ?? 0) + Number(count);
  return calls;
}

const reservedKeys = async () =>
  (await Promise.all(clients.map((client) => client.keys("redlock:*")))).flat();

describe("owner metadata", () => {
  it("is written on every node by the acquire script itself, with the lock's value and TTL", async () => {
    // Sends each script once as EVAL; every node's release is in by `settled` (release itself
    // resolves at a majority, and a late one would be counted below).
    await (
      await (await redlock.acquire(["owner:warm"], 1_000)).release()
    ).settled;
    const before = await commandCalls();
    const startMs = Date.now();
    const lock = await redlock.acquire(["owner:basic"], 5_000, {
      owner: { purpose: "call", run: "42" },
    });
    await lock.attempts[0];
    const after = await commandCalls();
    // One script call per node and nothing else: the owner entry costs no round trip of its own.
    expect((after.evalsha ?? 0) - (before.evalsha ?? 0)).toBe(3);
    expect((after.eval ?? 0) - (before.eval ?? 0)).toBe(0);
    expect(after.hset! - (before.hset ?? 0)).toBe(3); // counted inside the script
    const labels = {
      host: hostname(),
      pid: String(process.pid),
      service: "billing",
      purpose: "call",
      run: "42",
    };
    for (const entry of await ownerEntries("owner:basic")) {
      expect(entry.value).toBe(lock.value);
      expect(JSON.parse(entry.labels!)).toEqual(labels);
      expect(Number(entry.acquiredAt)).toBeGreaterThanOrEqual(startMs);
      expect(Number(entry.acquiredAt)).toBeLessThanOrEqual(Date.now());
      expect(entry.extensions).toBe("0");
    }
    for (const client of clients) {
      const [lockTtlMs, ownerTtlMs] = await Promise.all([
        client.pttl("owner:basic"),
        client.pttl(ownerKey("owner:basic")),
      ]);
      expect(ownerTtlMs).toBeGreaterThan(4_800);
      expect(Math.abs(ownerTtlMs - lockTtlMs)).toBeLessThanOrEqual(5); // set in the same script
    }
    expect(lock.owner).toEqual({ labels, acquiredAt: expect.any(Number), extensions: 0 });
    await lock.release();
  });

  it("is kept by extend, with the new TTL and one more extension each time", async () => {
    const lock = await redlock.acquire(["owner:extend"], 300);
    const once = await lock.extend(2_000);
    const twice = await once.extend(2_000);
    await twice.attempts[0];
    expect(twice.owner?.extensions).toBe(2);
    await sleep(400); // past the first TTL: the entry is still there
    for (const entry of await ownerEntries("owner:extend")) {
      expect(entry).toMatchObject({ value: lock.value, extensions: "2" });
    }
    for (const client of clients)
      expect(await client.pttl(ownerKey("owner:extend"))).toBeGreaterThan(1_000);
    await twice.release();
  });

  it("is deleted by release, and expires with the lock", async () => {
    const released = await redlock.acquire(["owner:release"], 5_000);
    await released.attempts[0];
    await released.release();
    const expiring = await redlock.acquire(["owner:expire"], 100);
    await expiring.attempts[0];
    expect((await ownerEntries("owner:expire")).every((entry) => entry.value)).toBe(true);
    await sleep(150);
    for (const client of clients) {
      expect(await client.exists("owner:release", ownerKey("owner:release"))).toBe(0);
      expect(await client.exists("owner:expire", ownerKey("owner:expire"))).toBe(0);
    }
  });

  it("is deleted with a failed attempt's keys, and never overwrites another holder's entry", async () => {
    // Held on 2 of 3 nodes by someone else: our attempt wins node 0 only, then releases it.
    await Promise.all(
      [1, 2].map((index) =>
        Promise.all([
          clients[index]!.set("owner:failed", "theirs", "PX", 5_000),
          clients[index]!.hset(ownerKey("owner:failed"), "value", "theirs", "labels", "{}"),
        ]),
      ),
    );
    await expect(redlock.acquire(["owner:failed"], 5_000)).rejects.toThrow();
    expect(await clients[0]!.exists("owner:failed", ownerKey("owner:failed"))).toBe(0);
    for (const index of [1, 2])
      expect(await clients[index]!.hget(ownerKey("owner:failed"), "value")).toBe("theirs");
    await Promise.all(
      clients.map((client) => client.del("owner:failed", ownerKey("owner:failed"))),
    );
  });

  it("with owner: false, writes no redlock: key at all through acquire, extend and release", async () => {
    expect(await reservedKeys()).toEqual([]);
    const plain = new Redlock(lockers, { retryCount: 0, owner: false });
    const lock = await plain.acquire(["owner:off"], 5_000);
    await (
      await lock.extend(5_000)
    ).attempts[0];
    expect(await reservedKeys()).toEqual([]);
    for (const client of clients) expect(await client.get("owner:off")).toBe(lock.value);
    expect(lock.owner).toBeUndefined();
    // Per call too: an instance with labels acquires one lock without them.
    const unlabelled = await redlock.acquire(["owner:off-call"], 5_000, { owner: false });
    await unlabelled.attempts[0];
    expect(await reservedKeys()).toEqual([]);
    await Promise.all([lock.release(), unlabelled.release()]);
  });

  it("refuses labels over 1 KiB of JSON, and labels that are not strings, with a TypeError", async () => {
    const big = { note: "x".repeat(OWNER_LABELS_MAX_BYTES) };
    expect(() => new Redlock(lockers, { owner: big })).toThrow(
      /Owner labels serialize to \d+ bytes of JSON, over the 1024-byte limit\./,
    );
    await expect(redlock.acquire(["owner:big"], 1_000, { owner: big })).rejects.toBeInstanceOf(
      TypeError,
    );
    expect(
      () => new Redlock(lockers, { owner: { pid: 42 } as unknown as Record<string, string> }),
    ).toThrow('Owner label "pid" must be a string, got number.');
    // Just under the cap is fine (the library's host and pid count towards it).
    const fixed = { host: "h", pid: "1" };
    const fillBytes = OWNER_LABELS_MAX_BYTES - JSON.stringify({ ...fixed, note: "" }).length;
    const fits = new Redlock(lockers, {
      retryCount: 0,
      owner: { ...fixed, note: "y".repeat(fillBytes) },
    });
    await (await fits.acquire(["owner:fits"], 1_000)).release();
    expect(await reservedKeys()).toEqual([]);
  });
});
