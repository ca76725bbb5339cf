/**
 * redlock.inspect(): a read-only look at resources across all nodes, without acquiring. An owner
 * entry is shown only when it belongs to the value read with it, so a stale or foreign one never
 * names the wrong holder. Private masters: one test pauses a node.
 */
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import NodeRedlock from "redlock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Redlock, {
  type Client,
  NodeTimeoutError,
  legacyOwnerKey,
  type ResourceInspection,
} from "@redlock-console/redlock";
import { callsPerCommand } from "@/scripts/command-stats";
import { lockClients } from "../lock-clients";
import { connect, disconnect, usePrivateMasters } from "../masters";

const { masters } = usePrivateMasters(5);
let clients: Redis[];
let lockers: Client[];
let redlock: Redlock;

beforeAll(async () => {
  clients = connect(masters().urls);
  lockers = await lockClients(clients);
  // No session: its heartbeat is a background SET, which "read-only" below would count.
  redlock = new Redlock(lockers, { retryCount: 0, owner: { service: "billing" }, session: false });
});
afterAll(() => disconnect(clients));

const inspectOne = async (resource: string, instance = redlock): Promise<ResourceInspection> =>
  (await instance.inspect([resource]))[0]!;

const WRITE_COMMANDS = ["set", "del", "hset", "zadd", "zrem", "pexpire", "hincrby"];

/** The write commands any node ran since the last reset, from INFO commandstats. */
const writeCalls = async () =>
  Object.keys(await callsPerCommand(clients))
    .map((command) => command.split("|")[0]!)
    .filter((command) => WRITE_COMMANDS.includes(command));

describe("inspect", () => {
  it("shows a held lock: value, quorum, validity left, owner and every node's detail", async () => {
    const lock = await redlock.acquire(["inspect:held"], 5_000, { owner: { job: "invoices" } });
    await lock.attempts[0];
    await Promise.all(clients.map((client) => client.config("RESETSTAT")));
    const seen = await inspectOne("inspect:held");
    expect(await writeCalls()).toEqual([]); // read-only: no write command ran on any node
    expect(seen).toMatchObject({
      resource: "inspect:held",
      state: "held",
      held: true,
      value: lock.value,
      quorum: 5,
      quorumSize: 3,
      answeredCount: 5,
      waiters: [],
      owner: {
        labels: { host: hostname(), pid: String(process.pid), service: "billing", job: "invoices" },
        acquiredAt: lock.owner!.acquiredAt,
        ttlMs: 5_000,
      },
    });
    expect(seen.validityMs).toBeGreaterThan(4_500);
    expect(seen.validityMs).toBeLessThanOrEqual(5_000);
    expect(seen.nodes).toHaveLength(5);
    for (const [index, node] of seen.nodes.entries()) {
      expect(node).toMatchObject({ index, keyType: "string", value: lock.value, waiterCount: 0 });
      expect(node.owner?.labels.job).toBe("invoices");
      expect(node.pttlMs).toBeGreaterThan(4_500);
    }
    // An extension keeps the owner; release leaves the resource free.
    const longer = await lock.extend(5_000);
    await longer.attempts[0];
    expect((await inspectOne("inspect:held")).owner?.labels.job).toBe("invoices");
    // release() resolves at a majority; the rest of the deletes land by `settled`.
    await (
      await longer.release()
    ).settled;
    expect(await inspectOne("inspect:held")).toMatchObject({ state: "free", held: false });
  });

  it("shows a free resource: no holder, no owner, no validity", async () => {
    const seen = await inspectOne("inspect:free");
    expect(seen).toMatchObject({
      state: "free",
      held: false,
      quorum: 0,
      validityMs: 0,
      waiters: [],
    });
    expect(seen.value).toBeUndefined();
    expect(seen.owner).toBeUndefined();
    for (const node of seen.nodes)
      expect(node).toMatchObject({ keyType: "none", pttlMs: -2, waiterCount: 0 });
  });

  it("shows a lock present on only 2 of 5 nodes as partial, not held, with its owner", async () => {
    const lock = await redlock.acquire(["inspect:partial"], 5_000);
    await lock.attempts[0];
    await Promise.all(clients.slice(2).map((client) => client.del("inspect:partial")));
    const seen = await inspectOne("inspect:partial");
    expect(seen).toMatchObject({ state: "partial", held: false, value: lock.value, quorum: 2 });
    expect(seen.validityMs).toBe(0);
    expect(seen.owner?.labels.service).toBe("billing"); // the value on those 2 nodes carries it
    expect(seen.nodes.map((node) => node.value ?? null)).toEqual([
      lock.value,
      lock.value,
      null,
      null,
      null,
    ]);
    // The three other nodes have no value, so no owner.
    expect(seen.nodes.slice(2).every((node) => node.owner === undefined)).toBe(true);
    await lock.release();
  });

  it("never shows a stale 1.x owner entry for another holder's lock (node-redlock, or a plain SET)", async () => {
    // A 1.x lock's key vanished without its owner entry (a crude DEL), then node-redlock takes it.
    const staleValue = "c".repeat(40);
    await Promise.all(
      clients.map((client) =>
        client.hset(legacyOwnerKey("inspect:foreign"), {
          value: staleValue,
          labels: '{"service":"stale"}',
          acquiredAt: "1",
          extensions: "0",
        }),
      ),
    );
    const theirs = (await new NodeRedlock(clients, { retryCount: 0 }).acquire(
      ["inspect:foreign"],
      5_000,
    )) as unknown as { value: string; attempts: Promise<unknown>[]; release(): Promise<unknown> };
    await theirs.attempts[0]; // node-redlock resolves at a majority: the last SET may still be on its way
    const seen = await inspectOne("inspect:foreign");
    expect(seen).toMatchObject({ state: "held", held: true, value: theirs.value, quorum: 5 });
    expect(seen.owner).toBeUndefined();
    expect(seen.nodes.every((node) => node.owner === undefined)).toBe(true);
    await theirs.release();
    // The same with any other value written straight into the key.
    await Promise.all(
      clients.map((client) => client.set("inspect:foreign", "foreign", "PX", 5_000)),
    );
    const plain = await inspectOne("inspect:foreign");
    expect(plain).toMatchObject({ state: "held", value: "foreign" });
    expect(plain.owner).toBeUndefined();
    await Promise.all(
      clients.map((client) => client.del("inspect:foreign", legacyOwnerKey("inspect:foreign"))),
    );
  });

  it("shows different values with no quorum as a conflict, and a key without TTL as unbounded", async () => {
    await Promise.all(
      clients.map((client, index) => client.set("inspect:conflict", index < 2 ? "a" : `b${index}`)),
    );
    const conflict = await inspectOne("inspect:conflict");
    expect(conflict).toMatchObject({ state: "conflict", held: false, value: "a", quorum: 2 });
    await Promise.all(clients.map((client) => client.set("inspect:conflict", "a")));
    const unbounded = await inspectOne("inspect:conflict");
    expect(unbounded).toMatchObject({ state: "held", validityMs: Infinity });
    expect(unbounded.nodes.every((node) => node.pttlMs === -1)).toBe(true);
    await Promise.all(clients.map((client) => client.del("inspect:conflict")));
  });

  it("answers with a node paused, not waiting for it past nodeTimeout, reporting that node's error", async () => {
    const lock = await redlock.acquire(["inspect:paused"], 5_000);
    await lock.attempts[0];
    masters().pause(4);
    try {
      const startMs = Date.now();
      const seen = await inspectOne("inspect:paused", new Redlock(lockers, { nodeTimeout: 200 }));
      // Waiting for the paused node would last until it resumes; ten nodeTimeouts (200 ms) are the
      // widest a slow machine needs.
      expect(Date.now() - startMs).toBeLessThan(10 * 200);
      expect(seen).toMatchObject({ state: "held", quorum: 4, answeredCount: 4 });
      expect(seen.nodes[4]!.error).toBeInstanceOf(NodeTimeoutError);
      expect(seen.nodes[4]!.value).toBeUndefined();
    } finally {
      masters().resume(4);
    }
    await lock.release();
  });

  it("reads several resources in one call and refuses an empty list", async () => {
    const lock = await redlock.acquire(["inspect:many:a"], 5_000);
    const seen = await redlock.inspect(["inspect:many:a", "inspect:many:b"]);
    expect(seen.map((row) => [row.resource, row.state])).toEqual([
      ["inspect:many:a", "held"],
      ["inspect:many:b", "free"],
    ]);
    await expect(redlock.inspect([])).rejects.toBeInstanceOf(TypeError);
    await lock.release();
  });
});
