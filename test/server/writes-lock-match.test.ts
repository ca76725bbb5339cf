/**
 * Issue 49 rows 3, 4, 8 and 9, over real HTTP on the shared masters, people through the trusted
 * proxy: the console writes only what it may read (LOCK_MATCH on every write route, and a value of
 * no lock format refused by the force-release script itself unless an admin says notALock: true);
 * a scope covers the whole lock (every resource a lock holds, a group's members by the group's
 * name); and the console lists only locks it can act on.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import Redlock, { type RedlockAbortSignal } from "@redlock-console/redlock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorBody, LocksResponse, MAX_RESOURCE_BYTES } from "@/lib/api";
import { connect, disconnect, sharedUrls } from "../masters";
import { useRbacConsole } from "./fixtures/rbac-console";

/** This file's own part of the key space: LOCK_MATCH covers only keys with it. */
const TAG = `w${randomBytes(3).toString("hex")}`;
const RESOURCE_BYTES_MAX: typeof MAX_RESOURCE_BYTES = 8192;

const rbac = useRbacConsole({
  rules: [
    { group: "a-oncall", role: "operator", resources: [`t-*:${TAG}:a:*`, `t-*:${TAG}:pay:*`] },
    { group: "ops", role: "operator" },
    { group: "sre", role: "admin" },
  ],
  people: { anna: ["a-oncall"], olga: ["ops"], sam: ["sre"] },
  config: { lockMatch: [`t-*:${TAG}:*`, `{t-*:${TAG}:*}#*`] },
});
type Answer = ErrorBody & Record<string, unknown>;

let nodes: Redis[];
let holder: Redlock;
beforeAll(() => {
  nodes = connect(sharedUrls());
  holder = new Redlock(nodes, { owner: { service: "billing" }, retryCount: 0 });
});
afterAll(async () => {
  await holder.quit();
  await disconnect(nodes);
});

/** A key inside LOCK_MATCH. */
const inside = (name: string) => rbac.key(`${TAG}:${name}`);
const pttlsOf = (key: string) => Promise.all(rbac.nodes.map((node) => node.pttl(key)));

/** A routine holding `resources` with using(); `aborted()` says whether its signal was aborted. */
async function holding(resources: string[]) {
  let aborted = false;
  let letGo!: () => void;
  const settled = new Promise<void>((resolve) => (letGo = resolve));
  let held!: () => void;
  const acquired = new Promise<void>((resolve) => (held = resolve));
  const done = holder
    .using(resources, 20_000, async (signal: RedlockAbortSignal) => {
      held();
      signal.addEventListener("abort", () => (aborted = true), { once: true });
      await settled;
    })
    .catch(() => undefined);
  await acquired;
  // One value on every resource of the lock: the first resource's, as the nodes hold it.
  const value = (await rbac.nodes[0]!.get(resources[0]!))!;
  return { value, aborted: () => aborted, end: () => (letGo(), done) };
}

describe("row 3: the console writes only what it may read", () => {
  const appValue = JSON.stringify({ name: "Alice", plan: "gold" });

  it("refuses force-release of an application key outside LOCK_MATCH (404), even to an admin's notALock, and leaves it whole", async () => {
    const key = rbac.key("user:42");
    await Promise.all(rbac.nodes.map((node) => node.set(key, appValue)));
    const page = await rbac.as<Answer>("olga", `/api/locks/${encodeURIComponent(key)}`);
    expect(page.status).toBe(404);
    expect(page.body.error.code).toBe("outside_lock_match");
    for (const [person, extra] of [
      ["olga", {}],
      ["sam", { notALock: true }],
    ] as const) {
      const answer = await rbac.as<Answer>(person, "/api/locks/force-release", {
        body: { resource: key, force: true, reason: "row 3", ...extra },
      });
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe("outside_lock_match");
    }
    const revoke = await rbac.as<Answer>("olga", "/api/locks/revoke", {
      body: { resource: key, expectedValue: appValue, reason: "row 3" },
    });
    expect(revoke.status).toBe(404);
    expect(await rbac.valuesOf(key)).toEqual(Array(5).fill(appValue));
    expect(await pttlsOf(key)).toEqual(Array(5).fill(-1));
  });

  it("refuses force-release of a value of no lock format inside LOCK_MATCH (409 not_a_lock): value intact, TTL unchanged", async () => {
    const key = inside("app:user:42");
    await Promise.all(rbac.nodes.map((node) => node.set(key, appValue)));
    for (const body of [
      { resource: key, force: true, reason: "row 3" },
      { resource: key, expectedValue: appValue, reason: "row 3" },
      { resource: key, force: true, disposal: "delete-now", reason: "row 3" },
    ]) {
      const person = body.disposal ? "sam" : "olga";
      const answer = await rbac.as<Answer>(person, "/api/locks/force-release", { body });
      expect(answer.status).toBe(409);
      expect(answer.body.error.code).toBe("not_a_lock");
    }
    // The flag is an admin's alone.
    const operator = await rbac.as<Answer>("olga", "/api/locks/force-release", {
      body: { resource: key, force: true, notALock: true, reason: "row 3" },
    });
    expect(operator.status).toBe(403);
    expect(operator.body.error.message).toContain("needs admin");
    expect(await rbac.valuesOf(key)).toEqual(Array(5).fill(appValue));
    expect(await pttlsOf(key)).toEqual(Array(5).fill(-1));
  });

  it("force: true over nodes holding a lock and nodes holding an application's value: the locks tombstoned, the values left whole, the answer says so", async () => {
    const key = inside("app:user:44");
    const lock = "ef".repeat(20);
    await Promise.all(
      rbac.nodes.map((node, index) =>
        index < 3 ? node.set(key, lock, "PX", 30_000) : node.set(key, appValue),
      ),
    );
    const answer = await rbac.as<Answer>("olga", "/api/locks/force-release", {
      body: { resource: key, force: true, reason: "row 3, mixed" },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ tombstonedCount: 3, notALockCount: 2 });
    expect(answer.body.summary).toContain("left exactly as it was");
    const values = await rbac.valuesOf(key);
    expect(values.slice(0, 3).every((value) => value?.startsWith("rlx:"))).toBe(true);
    expect(values.slice(3)).toEqual([appValue, appValue]);
    expect((await pttlsOf(key)).slice(3)).toEqual([-1, -1]);
  });

  it("lets an admin act on it with notALock: true, the answer and the audit saying it was not a lock", async () => {
    const key = inside("app:user:43");
    await Promise.all(rbac.nodes.map((node) => node.set(key, appValue)));
    const answer = await rbac.as<Answer>("sam", "/api/locks/force-release", {
      body: { resource: key, force: true, notALock: true, reason: "stale app key, on purpose" },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ tombstonedCount: 5, notALockCount: 5 });
    expect(answer.body.summary).toContain("not a lock");
    const { entries } = await rbac.tc.ctx.audit.read(50);
    const entry = entries.find((found) => found.id === answer.body.auditId);
    expect(entry?.detail).toContain("not a lock");
    expect(entry?.outcome).toBe("success");
  });

  it("still force-releases another library's lock (node-redlock's bare token) inside LOCK_MATCH", async () => {
    const key = inside("lock:node-redlock");
    await rbac.setEverywhere(key, "ab".repeat(20), 30_000);
    const answer = await rbac.as<Answer>("olga", "/api/locks/force-release", {
      body: { resource: key, force: true, reason: "row 3" },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ tombstonedCount: 5, notALockCount: 0 });
  });
});

describe("row 8: the playground writes only inside LOCK_MATCH", () => {
  it("refuses acquire, extend and release outside it (404), writing nothing on any node", async () => {
    const hidden = rbac.key("hidden:1");
    const mixed = [inside("lock:pg"), hidden];
    for (const resources of [[hidden], mixed]) {
      const acquire = await rbac.as<Answer>("olga", "/api/locks", {
        body: { resources, ttlMs: 5_000 },
      });
      expect(acquire.status).toBe(404);
      expect(acquire.body.error.code).toBe("outside_lock_match");
    }
    const value = "cd".repeat(20);
    const extend = await rbac.as<Answer>("olga", "/api/locks/extend", {
      body: { resources: [hidden], value, ttlMs: 5_000 },
    });
    const release = await rbac.as<Answer>("olga", "/api/locks/release", {
      body: { resources: [hidden], value },
    });
    expect([extend.status, release.status]).toEqual([404, 404]);
    for (const key of mixed) expect(await rbac.valuesOf(key)).toEqual(Array(5).fill(null));
  });
});

describe("row 4: a scope covers the whole lock", () => {
  it("refuses a:1 of a lock on a:1 and b:1 to an operator over a:* (force-release and revoke): b:1 still held, the holder not aborted", async () => {
    const [a1, b1] = [inside("a:1"), inside("b:1")];
    const routine = await holding([a1, b1]);
    try {
      await rbac.tc.sync();
      const { value } = routine;
      const force = await rbac.as<Answer>("anna", "/api/locks/force-release", {
        body: { resource: a1, expectedValue: value, reason: "row 4" },
      });
      expect(force.status).toBe(403);
      expect(force.body.error.message).toContain(`outside your scope: ${b1}`);
      const revoke = await rbac.as<Answer>("anna", "/api/locks/revoke", {
        body: { resource: a1, expectedValue: value, reason: "row 4" },
      });
      expect(revoke.status).toBe(403);
      expect(revoke.body.error.message).toContain(b1);
      // force: true names no value, so the lock's other resources cannot be known: refused too.
      const any = await rbac.as<Answer>("anna", "/api/locks/force-release", {
        body: { resource: a1, force: true, reason: "row 4" },
      });
      expect(any.status).toBe(403);
      expect(await rbac.valuesOf(a1)).toEqual(Array(5).fill(value));
      expect(await rbac.valuesOf(b1)).toEqual(Array(5).fill(value));
      const markers = await Promise.all(rbac.nodes.map((node) => node.keys(`redlock:{${a1}}*`)));
      expect(markers.flat()).toEqual([]);
      expect(routine.aborted()).toBe(false);
    } finally {
      await routine.end();
    }
  });

  it("scopes a semaphore's permit by the semaphore's name: an operator over pay:* force-releases {pay:x}#i", async () => {
    const semaphore = holder.semaphore(inside("pay:x"), 2);
    const permit = await semaphore.acquire(20_000);
    const [member] = permit.resources;
    expect(member).toMatch(/^\{.*\}#[01]$/);
    await rbac.tc.sync();
    const answer = await rbac.as<Answer>("anna", "/api/locks/force-release", {
      body: { resource: member, expectedValue: permit.value, reason: "row 4, a permit" },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.tombstonedCount).toBe(5);
  });
});

describe("row 9: the console lists only locks it can act on", () => {
  it("never lists a 9,005-byte key (no route accepts its name); lists and acts on one of 8,192 bytes", async () => {
    const base = inside("lock:");
    const tooLong = base + "x".repeat(9_005 - base.length);
    const longest = base + "y".repeat(RESOURCE_BYTES_MAX - base.length);
    expect([Buffer.byteLength(tooLong), Buffer.byteLength(longest)]).toEqual([9_005, 8_192]);
    const locks = await Promise.all([tooLong, longest].map((key) => holder.acquire([key], 30_000)));
    try {
      await rbac.tc.sync();
      const list = await rbac.as<LocksResponse>("olga", "/api/locks?limit=500");
      const listed = list.body.items.map((item) => item.resource);
      expect(listed).toContain(longest);
      expect(listed).not.toContain(tooLong);
      const page = await rbac.as<Answer>("olga", `/api/locks/${encodeURIComponent(longest)}`);
      expect(page.status).toBe(200);
      const force = await rbac.as<Answer>("olga", "/api/locks/force-release", {
        body: { resource: longest, expectedValue: locks[1]!.value, reason: "row 9" },
      });
      expect(force.status).toBe(200);
      expect(force.body.tombstonedCount).toBe(5);
    } finally {
      await Promise.all(locks.map((lock) => lock.release().catch(() => undefined)));
    }
  });
});
