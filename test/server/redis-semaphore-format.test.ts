/**
 * Issue 44: the console reads redis-semaphore's Semaphore (read only), by its exact format: a
 * sorted set `semaphore:<key>` with a TTL, its holders' UUIDs scored by epoch ms. It is one row,
 * `semaphore: { permits: null, used: <live holders> }`; a sorted set of any other name or members
 * is no lock; force-release and revoke of it are refused (409 read_only_format), nothing written.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { Semaphore } from "redis-semaphore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as revoke from "@/app/api/locks/revoke/route";
import * as locks from "@/app/api/locks/route";
import type { ErrorBody, LockResponse, LockRow, LocksResponse } from "@/lib/api";
import { connect, disconnect, sharedUrls } from "../masters";
import { call, startTestConsole, type TestConsole, deleteMarked } from "./helpers";

let tc: TestConsole;
let nodes: Redis[];
const marker = `rsem-${randomBytes(4).toString("hex")}`;
const semaphoreName = `${marker}:exports`;
const setKey = `semaphore:${semaphoreName}`;
const holders: Semaphore[] = [];

async function rows(): Promise<LockRow[]> {
  await tc.sync();
  const match = encodeURIComponent(`*${marker}*`);
  const response = await call<LocksResponse>(locks.GET, `/api/locks?match=${match}`);
  expect(response.status).toBe(200);
  return response.body.items;
}

beforeAll(async () => {
  tc = startTestConsole(sharedUrls(), { lockMatch: [`*${marker}*`] });
  nodes = connect(sharedUrls());
  await tc.ready();
  for (let holder = 0; holder < 2; holder += 1) {
    const semaphore = new Semaphore(nodes[0]!, semaphoreName, 3, {
      lockTimeout: 30_000,
      refreshInterval: 0,
    });
    await semaphore.acquire();
    holders.push(semaphore);
  }
});

afterAll(async () => {
  await Promise.all(holders.map((holder) => holder.release().catch(() => undefined)));
  await deleteMarked(nodes, marker);
  await tc.close();
  await disconnect(nodes);
});

describe("redis-semaphore's Semaphore, read only", () => {
  it("keeps its holders in a sorted set with a TTL, as the console expects", async () => {
    const entries = await nodes[0]!.zrange(setKey, 0, -1, "WITHSCORES");
    expect(entries).toHaveLength(4);
    expect(entries[0]).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(Math.abs(Number(entries[1]) - Date.now())).toBeLessThan(60_000);
    expect(await nodes[0]!.pttl(setKey)).toBeGreaterThan(20_000);
  });

  it("is one row with its holders counted and no permit count", async () => {
    const row = (await rows()).find((candidate) => candidate.resource === setKey);
    expect(row).toMatchObject({
      format: "redis-semaphore",
      semaphore: { kind: "redis-semaphore", permits: null, used: 2 },
      owner: { kind: "unknown", format: "redis-semaphore" },
    });
    // Its Semaphore lives on one node: no majority holds it.
    expect(row?.quorum).toBe(1);
    const detail = await call<LockResponse>(
      lockRoute.GET,
      `/api/locks/${encodeURIComponent(setKey)}`,
    );
    expect(detail.body.lock?.semaphore).toEqual({
      kind: "redis-semaphore",
      permits: null,
      used: 2,
    });
    expect(detail.body.lock?.value?.split(",").sort()).toEqual(
      holders.map((holder) => holder.identifier).sort(),
    );
  });

  it("lists no other sorted set: another name, other members, or no TTL", async () => {
    const now = String(Date.now());
    const uuid = "0b6c2a9e-3f1d-4c8a-9b7e-2d5f6a1c3e4b";
    await nodes[0]!.zadd(`${marker}:zset`, now, uuid);
    await nodes[0]!.pexpire(`${marker}:zset`, 30_000);
    await nodes[0]!.zadd(`semaphore:${marker}:scores`, "12", "alice");
    await nodes[0]!.pexpire(`semaphore:${marker}:scores`, 30_000);
    await nodes[0]!.zadd(`semaphore:${marker}:forever`, now, uuid);
    const listed = (await rows()).map((row) => row.resource);
    expect(listed).toEqual([setKey]);
  });

  it("refuses force-release and revoke with 409 read_only_format, the set untouched", async () => {
    const value = holders
      .map((holder) => holder.identifier)
      .sort()
      .join(",");
    const forced = await call<ErrorBody>(forceRelease.POST, "/api/locks/force-release", {
      body: { resource: setKey, force: true, reason: "redis-semaphore test" },
    });
    expect(forced.status).toBe(409);
    expect(forced.body.error.code).toBe("read_only_format");
    const revoked = await call<ErrorBody>(revoke.POST, "/api/locks/revoke", {
      body: { resource: setKey, expectedValue: value, reason: "redis-semaphore test" },
    });
    expect(revoked.status).toBe(409);
    expect(revoked.body.error.code).toBe("read_only_format");
    expect(await nodes[0]!.zcard(setKey)).toBe(2);
  });

  it("counts a holder gone once it releases", async () => {
    await holders.pop()!.release();
    const row = (await rows()).find((candidate) => candidate.resource === setKey);
    expect(row?.semaphore).toEqual({ kind: "redis-semaphore", permits: null, used: 1 });
  });
});
