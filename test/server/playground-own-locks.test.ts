/**
 * The playground's extend and release act only on locks this console acquired (issue 39, deliver
 * 1): a value pasted from a lock page, another holder's, gets 409 not_console_lock and nothing
 * changes on any node; a force-release tombstone of that value stays (only its holder's own
 * release lifts it). The holder is the real library with a session, on the shared masters.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as extend from "@/app/api/locks/extend/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as release from "@/app/api/locks/release/route";
import * as locks from "@/app/api/locks/route";
import type {
  ErrorBody,
  ForceReleaseResponse,
  LockGrantResponse,
  ReleaseResponse,
} from "@/lib/api";
import Redlock from "@redlock-console/redlock";
import { consoleInstanceId } from "@/lib/server/actions/console-owner";
import { connect, disconnect, sharedUrls } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

let tc: TestConsole;
let nodes: Redis[];
let holder: Redlock;
const key = (name: string) => `${tc.prefix}${name}`;
const valuesOf = (resource: string) => Promise.all(nodes.map((node) => node.get(resource)));
const pttlsOf = (resource: string) => Promise.all(nodes.map((node) => node.pttl(resource)));
/**
 * The library's acquire resolves once a majority said yes; its SET to the last node may land just
 * after (busy CI run 4 read null there). "Nothing changed on any node" is only checked once the
 * holder's lock is on every node.
 */
const onEveryNode = (resource: string, value: string) =>
  expect.poll(() => valuesOf(resource), { timeout: 20_000 }).toEqual(nodes.map(() => value));

const releaseBy = (resources: string[], value: string) =>
  call<ReleaseResponse & ErrorBody>(release.POST, "/api/locks/release", {
    body: { resources, value },
  });
const extendBy = (resources: string[], value: string, ttlMs = 60_000) =>
  call<LockGrantResponse & ErrorBody>(extend.POST, "/api/locks/extend", {
    body: { resources, value, ttlMs },
  });

beforeAll(async () => {
  tc = startTestConsole(sharedUrls());
  nodes = connect(sharedUrls());
  holder = new Redlock(connect(sharedUrls()), { retryCount: 0 });
  await tc.ready();
});

afterAll(async () => {
  await holder.quit();
  await tc.close();
  await disconnect(nodes);
});

describe("the playground's release and extend of another holder's value", () => {
  it("answers release with 409 not_console_lock and leaves the holder's lock on every node", async () => {
    const resource = key("theirs-release");
    const lock = await holder.acquire([resource], 20_000);
    await onEveryNode(resource, lock.value);
    try {
      const response = await releaseBy([resource], lock.value);
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe("not_console_lock");
      expect(response.body.error.message).toContain("Force release");
      expect(await valuesOf(resource)).toEqual(nodes.map(() => lock.value));
    } finally {
      await lock.release();
    }
  });

  it("answers extend with 409 not_console_lock and extends nothing", async () => {
    const resource = key("theirs-extend");
    const lock = await holder.acquire([resource], 5_000);
    await onEveryNode(resource, lock.value);
    try {
      const response = await extendBy([resource], lock.value, 60_000);
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe("not_console_lock");
      expect(await valuesOf(resource)).toEqual(nodes.map(() => lock.value));
      for (const pttlMs of await pttlsOf(resource)) expect(pttlMs).toBeLessThanOrEqual(5_000);
    } finally {
      await lock.release();
    }
  });

  it("never lifts a force-release tombstone of that value: the reservation stays on every node", async () => {
    const resource = key("tombstoned");
    const lock = await holder.acquire([resource], 20_000);
    await onEveryNode(resource, lock.value);
    const forced = await call<ForceReleaseResponse>(forceRelease.POST, "/api/locks/force-release", {
      body: { resource, expectedValue: lock.value, reason: "wedged worker" },
    });
    expect(forced.body).toMatchObject({ mode: "tombstoned", tombstonedCount: nodes.length });
    const tombstones = await valuesOf(resource);
    const pttls = await pttlsOf(resource);
    for (const value of [lock.value, tombstones[0]!]) {
      expect((await releaseBy([resource], value)).body.error.code).toBe("not_console_lock");
      expect((await extendBy([resource], value)).body.error.code).toBe("not_console_lock");
    }
    expect(await valuesOf(resource)).toEqual(tombstones);
    const after = await pttlsOf(resource);
    after.forEach((pttlMs, at) => expect(pttlMs).toBeLessThanOrEqual(pttls[at]!));
    for (const pttlMs of after) expect(pttlMs).toBeGreaterThan(10_000);
    await lock.release(); // the holder's own acknowledgement lifts it
    expect(await valuesOf(resource)).toEqual(nodes.map(() => null));
  });

  it("refuses another console's lock (its own labels, another instance id)", async () => {
    const resource = key("other-console");
    const other = { service: "redlock-console", console: "0123456789abcdef", operator: "token" };
    const lock = await holder.acquire([resource], 20_000, { owner: other });
    await onEveryNode(resource, lock.value);
    const { value } = lock;
    expect((await releaseBy([resource], value)).body.error.code).toBe("not_console_lock");
    expect(await valuesOf(resource)).toEqual(nodes.map(() => value));
    await lock.release();
  });
});

describe("the console's own acquired lock", () => {
  it("still extends and releases", async () => {
    const resource = key("mine");
    const acquired = await call<LockGrantResponse>(locks.POST, "/api/locks", {
      body: { resources: [resource], ttlMs: 2_000 },
    });
    expect(acquired.status).toBe(201);
    const { value } = acquired.body.lock;
    expect(value).toContain(`"console":"${consoleInstanceId(tc.ctx.redlock)}"`);
    const extended = await extendBy([resource], value, 60_000);
    expect(extended.status).toBe(200);
    for (const pttlMs of await pttlsOf(resource)) expect(pttlMs).toBeGreaterThan(50_000);
    const released = await releaseBy([resource], value);
    expect(released.status).toBe(200);
    expect(released.body.releasedCount).toBe(nodes.length);
    expect(await valuesOf(resource)).toEqual(nodes.map(() => null));
  });
});
