/**
 * Issue 32 rows 2 and 8, on real masters: the console reads out only keys that LOCK_MATCH covers
 * and that hold a value of a recognised lock format. A key outside LOCK_MATCH is refused (404
 * outside_lock_match) before anything is read; an application's string key (no lock format, or no
 * TTL) is skipped, counted, and never served, whether listed or asked for by name.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import * as locks from "@/app/api/locks/route";
import * as nodesRoute from "@/app/api/nodes/route";
import type { ErrorBody, LockResponse, LocksResponse, NodesResponse } from "@/lib/api";
import { encodeValue } from "@/lib/redlock/value";
import { connect, disconnect, usePrivateMasters } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const hex40 = () => randomBytes(20).toString("hex");
const rl1 = () => encodeValue(hex40(), '{"service":"billing"}', Date.now(), 60_000);

describe("a key outside LOCK_MATCH (issue 32 row 2)", () => {
  const masters = usePrivateMasters(3);
  let tc: TestConsole;
  let nodes: Redis[];

  beforeAll(async () => {
    nodes = connect(masters.masters().urls);
    await Promise.all(nodes.map((node) => node.set("app:secret", "s3cr3t")));
    // Lock-shaped and with a TTL, but still outside LOCK_MATCH: refused too.
    await Promise.all(nodes.map((node) => node.set("app:token", hex40(), "PX", 60_000)));
    tc = startTestConsole(masters.masters().urls, { lockMatch: ["locks:*"] });
    await tc.sync();
  });

  afterAll(async () => {
    await tc.close();
    await disconnect(nodes);
  });

  it("is refused to an anonymous reader with 404 outside_lock_match, its value never sent", async () => {
    for (const name of ["app:secret", "app:token"]) {
      const response = await call<ErrorBody>(lockRoute.GET, `/api/locks/${name}`, {
        token: null,
      });
      expect(response.status).toBe(404);
      expect(response.body.error).toMatchObject({ code: "outside_lock_match" });
      expect(typeof response.body.error.message).toBe("string");
      expect(response.text).not.toContain("s3cr3t");
    }
  });

  it("is refused to the admin as well: LOCK_MATCH says what is a lock, not who asks", async () => {
    const response = await call<ErrorBody>(lockRoute.GET, "/api/locks/app:secret");
    expect(response.status).toBe(404);
    expect(response.text).not.toContain("s3cr3t");
  });
});

describe("what is a lock (issue 32 row 8), LOCK_MATCH=*", () => {
  const masters = usePrivateMasters(3);
  let tc: TestConsole;
  let nodes: Redis[];
  const realLocks = new Map<string, string>([
    ["lock:ours", rl1()],
    ["lock:bare", hex40()],
    ["lock:node-redlock", randomBytes(16).toString("hex")],
    ["lock:redsync", randomBytes(16).toString("base64")],
    ["lock:uuid", randomUUID()],
  ]);

  const forever = rl1();
  const redissonHolder = `${randomUUID()}:1`;

  beforeAll(async () => {
    nodes = connect(masters.masters().urls);
    for (const node of nodes) {
      const batch = node.pipeline();
      for (let user = 0; user < 1_000; user += 1)
        batch.set(`user:${user}`, JSON.stringify({ id: user, name: `user ${user}` }));
      for (const [name, value] of realLocks) batch.set(name, value, "PX", 60_000);
      // No TTL, but unmistakably a lock's: shown as a lock that never expires.
      batch.set("lock:forever", forever);
      // Redisson hash lock without a TTL (its own <uuid>:<thread> holder field).
      batch.hset("lock:redisson-forever", redissonHolder, "1");
      // An application hash without a TTL, shaped a little like Redisson's: no lock.
      batch.hset("app:counters", "region:1", "5");
      await batch.exec();
    }
    tc = startTestConsole(masters.masters().urls, { lockMatch: ["*"] });
    await tc.sync();
  });

  afterAll(async () => {
    await tc.close();
    await disconnect(nodes);
  });

  it("lists only the locks, and counts the 1,000 ordinary keys as skipped on each node", async () => {
    const response = await call<LocksResponse>(locks.GET, "/api/locks?limit=500", {
      token: null,
    });
    expect(response.status).toBe(200);
    expect(response.body.items.map((row) => row.resource).sort()).toEqual(
      [...realLocks.keys(), "lock:forever", "lock:redisson-forever"].sort(),
    );
    expect(response.text).not.toContain("user ");
    for (const name of ["lock:forever", "lock:redisson-forever"])
      expect(response.body.items.find((row) => row.resource === name)).toMatchObject({
        state: "held",
        validityMs: -1,
      });

    const nodesResponse = await call<NodesResponse>(nodesRoute.GET, "/api/nodes");
    for (const node of nodesResponse.body.nodes)
      // 1,000 user keys and the application hash.
      expect(node.index?.skippedKeys).toBe(1_001);
  });

  it("never serves a plain string key asked for by name", async () => {
    await Promise.all(nodes.map((node) => node.set("app:note", "hello world")));
    await Promise.all(nodes.map((node) => node.set("app:note-ttl", "hello world", "PX", 60_000)));
    await tc.sync();
    for (const name of ["app:note", "app:note-ttl", "user:7"]) {
      const response = await call<LockResponse>(lockRoute.GET, `/api/locks/${name}`, {
        token: null,
      });
      expect(response.status, name).toBe(200);
      expect(response.body.lock, name).toBeNull();
      expect(response.text).not.toContain("hello world");
      expect(response.text).not.toContain("user 7");
    }
    const list = await call<LocksResponse>(locks.GET, "/api/locks?match=app:*", { token: null });
    expect(list.body.items).toEqual([]);
  });

  it("still reads a real lock by name: its digest for anyone, its value once signed in", async () => {
    const value = realLocks.get("lock:uuid") ?? "";
    const anonymous = await call<LockResponse>(lockRoute.GET, "/api/locks/lock:uuid", {
      token: null,
    });
    expect(anonymous.body.lock).toMatchObject({ state: "held" });
    expect(anonymous.text).not.toContain(value);
    const signedIn = await call<LockResponse>(lockRoute.GET, "/api/locks/lock:uuid");
    expect(signedIn.body.lock).toMatchObject({ state: "held", value });
  });
});
