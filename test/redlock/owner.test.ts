/**
 * Owner metadata: the owner travels in the lock's value (`rl1:<token>:<json>`),
 * written by the same SET as the lock, so it lives exactly as long as the lock and no second key
 * exists. Private masters: the test counts Redis commands and lists every `redlock:` key.
 */
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Redlock, {
  type Client,
  decodeValue,
  legacyOwnerKey,
  OWNER_LABELS_MAX_BYTES,
  wasExtended,
} from "@redlock-console/redlock";
import { callsPerCommand } from "@/scripts/command-stats";
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
    // Its heartbeat is a background SET and a key of its own, counted in session.test.ts.
    session: false,
  });
});
afterAll(() => disconnect(clients));

const values = (resource: string) => Promise.all(clients.map((client) => client.get(resource)));

/** Every `redlock:` key but sessions' heartbeat keys, which belong to a process, not to a lock. */
const reservedKeys = async () =>
  (await Promise.all(clients.map((client) => client.keys("redlock:*"))))
    .flat()
    .filter((key) => !key.startsWith("redlock:session:"));

describe("owner metadata", () => {
  it("travels in the lock's value: one SET per node, no second key, readable with a plain GET", async () => {
    // Sends each script once as EVAL; every node's release is in by `settled`.
    await (
      await (await redlock.acquire(["owner:warm"], 1_000)).release()
    ).settled;
    const before = await callsPerCommand(clients);
    const startMs = Date.now();
    const lock = await redlock.acquire(["owner:basic"], 5_000, {
      owner: { purpose: "call", run: "42" },
    });
    await lock.attempts[0];
    const after = await callsPerCommand(clients);
    // One plain SET NX PX per node (no script call: script.ts PlainCommand), and nothing else.
    expect((after.evalsha ?? 0) - (before.evalsha ?? 0)).toBe(0);
    expect((after.eval ?? 0) - (before.eval ?? 0)).toBe(0);
    expect((after.set ?? 0) - (before.set ?? 0)).toBe(3);
    expect(after.hset ?? 0).toBe(before.hset ?? 0);
    expect(after.pexpire ?? 0).toBe(before.pexpire ?? 0);
    const labels = {
      host: hostname(),
      pid: String(process.pid),
      service: "billing",
      purpose: "call",
      run: "42",
    };
    expect(lock.value).toMatch(/^rl1:[0-9a-f]{40}:\{"acquiredAt":\d+,"ttlMs":5000,"labels":\{/);
    for (const value of await values("owner:basic")) {
      expect(value).toBe(lock.value);
      const decoded = decodeValue(value!)!;
      expect(decoded.owner.labels).toEqual(labels);
      expect(decoded.owner.ttlMs).toBe(5_000);
      expect(decoded.owner.acquiredAt).toBeGreaterThanOrEqual(startMs);
      expect(decoded.owner.acquiredAt).toBeLessThanOrEqual(Date.now());
      expect(decoded.token).toBe(lock.value.slice(4, 44));
    }
    expect(await reservedKeys()).toEqual([]);
    expect(lock.owner).toEqual({
      labels,
      acquiredAt: expect.any(Number),
      ttlMs: 5_000,
      extensions: 0,
    });
    await lock.release();
  });

  it("survives extension unchanged; inspect() shows it extended once held past its first TTL", async () => {
    const lock = await redlock.acquire(["owner:extend"], 300);
    const once = await lock.extend(2_000);
    const twice = await once.extend(2_000);
    await twice.attempts[0];
    expect(twice.owner?.extensions).toBe(2); // counted by the handle, which knows
    expect(twice.value).toBe(lock.value);
    const [early] = await redlock.inspect(["owner:extend"]);
    expect(wasExtended(early!.owner!, Date.now())).toBe(false); // not held past 300 ms yet
    await sleep(400); // past the first TTL: still held, so it was extended
    const [seen] = await redlock.inspect(["owner:extend"]);
    expect(seen!.state).toBe("held");
    expect(seen!.owner).toMatchObject({ ttlMs: 300, labels: { service: "billing" } });
    expect(seen!.owner!.extensions).toBeUndefined(); // a 2.x value does not count them
    expect(wasExtended(seen!.owner!, Date.now())).toBe(true);
    for (const value of await values("owner:extend")) expect(value).toBe(lock.value);
    await twice.release();
  });

  it("goes with the lock: release deletes the one key, expiry takes it", async () => {
    const released = await redlock.acquire(["owner:release"], 5_000);
    await released.attempts[0];
    await (
      await released.release()
    ).settled;
    const expiring = await redlock.acquire(["owner:expire"], 100);
    await expiring.attempts[0];
    await sleep(150);
    for (const client of clients)
      expect(await client.exists("owner:release", "owner:expire")).toBe(0);
    expect(await reservedKeys()).toEqual([]);
  });

  it("round-trips every label set up to the size cap through the nodes", async () => {
    const fixed = { host: "h", pid: "1" };
    const fillBytes = (extra: Record<string, string>) =>
      OWNER_LABELS_MAX_BYTES - Buffer.byteLength(JSON.stringify({ ...fixed, ...extra, note: "" }));
    const labelSets: Record<string, string>[] = [
      {},
      { service: "" },
      { "": "empty name" },
      { quote: '"', backslash: "\\", colon: "rl1:abc:{}", newline: "a\nb", tab: "\t" },
      { unicode: "zürich – 東京 – 🔒", control: "\u0000\u001f", surrogate: "\ud83d\udd12" },
      { json: '{"acquiredAt":1,"ttlMs":2,"labels":{}}', "}{": "][" },
      { note: "y".repeat(fillBytes({})) }, // exactly at the cap
      { multibyte: "é".repeat(Math.floor(fillBytes({ multibyte: "" }) / 2)) },
    ];
    for (const [index, labels] of labelSets.entries()) {
      const labelled = new Redlock(lockers, { retryCount: 0, owner: { ...fixed, ...labels } });
      const resource = `owner:round-trip:${index}`;
      const lock = await labelled.acquire([resource], 5_000);
      await lock.attempts[0];
      for (const value of await values(resource)) {
        expect(decodeValue(value!)?.owner.labels).toEqual({ ...fixed, ...labels });
      }
      const [seen] = await labelled.inspect([resource]);
      expect(seen!.owner?.labels).toEqual({ ...fixed, ...labels });
      await lock.release();
    }
  });

  it("still reads the owner entry of a lock taken by 1.x (rolling upgrade)", async () => {
    const value = "0123456789abcdef0123456789abcdef01234567";
    const labels = JSON.stringify({ host: "old-host", pid: "7", service: "legacy" });
    await Promise.all(
      clients.map((client) =>
        client
          .multi()
          .set("owner:legacy", value, "PX", 5_000)
          .hset(legacyOwnerKey("owner:legacy"), {
            value,
            labels,
            acquiredAt: "1700000000000",
            extensions: "3",
          })
          .pexpire(legacyOwnerKey("owner:legacy"), 5_000)
          .exec(),
      ),
    );
    const [seen] = await redlock.inspect(["owner:legacy"]);
    expect(seen!.owner).toEqual({
      labels: { host: "old-host", pid: "7", service: "legacy" },
      acquiredAt: 1_700_000_000_000,
      extensions: 3,
    });
    expect(wasExtended(seen!.owner!, Date.now())).toBe(true);
    // An entry that belongs to another value is not this holder's owner.
    await Promise.all(
      clients.map((client) => client.set("owner:legacy", "f".repeat(40), "PX", 5_000)),
    );
    const [other] = await redlock.inspect(["owner:legacy"]);
    expect(other!.owner).toBeUndefined();
    await Promise.all(
      clients.map((client) => client.del("owner:legacy", legacyOwnerKey("owner:legacy"))),
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
    expect(lock.value).toMatch(/^[0-9a-f]{40}$/); // exactly node-redlock's value
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
