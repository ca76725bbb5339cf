import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import * as locks from "@/app/api/locks/route";
import type { LockResponse, LocksResponse } from "@/lib/api";
import Redlock, { fenceKey } from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls } from "../masters";
import { call, startTestConsole, type TestConsole, deleteMarked } from "./helpers";

let tc: TestConsole;
let nodes: Redis[];
let redlock: Redlock;
// The console scans `*<marker>*`, which also matches the counters `redlock:fence:<marker>…`: only the
// reserved-prefix rule keeps them out of the snapshot.
const marker = `fence-${randomBytes(4).toString("hex")}`;
const key = (name: string) => `${marker}:${name}`;

async function readOne(resource: string): Promise<LockResponse> {
  await tc.sync(); // the row comes from the live index
  const response = await call<LockResponse>(
    lockRoute.GET,
    `/api/locks/${encodeURIComponent(resource)}`,
  );
  expect(response.status).toBe(200);
  return response.body;
}

beforeAll(() => {
  tc = startTestConsole(sharedUrls(), { lockMatch: [`*${marker}*`] });
  nodes = connect(sharedUrls());
  redlock = new Redlock(nodes, { fencing: true, retryCount: 0 });
});

afterAll(async () => {
  await deleteMarked(nodes, marker);
  await tc.close();
  await disconnect(nodes);
});

it("shows the fencing token of each fenced acquire, increasing, per node and overall", async () => {
  const resource = key("fenced");
  const first = await redlock.acquire([resource], 10_000);
  const held = await readOne(resource);
  expect(first.fencingToken).toBeGreaterThan(0);
  expect(held.fencingToken).toBe(first.fencingToken);
  expect(held.lock?.value).toBe(first.value);
  // acquire resolves once a majority recorded the token; the other nodes follow within a moment.
  await expect
    .poll(async () => (await readOne(resource)).lock?.nodes.map((node) => node.fencingToken))
    .toEqual(Array(5).fill(first.fencingToken));
  await first.release();

  const free = await readOne(resource);
  expect([free.lock, free.fencingToken]).toEqual([null, first.fencingToken]);

  const second = await redlock.acquire([resource], 10_000);
  expect(second.fencingToken).toBeGreaterThan(first.fencingToken!);
  const again = await readOne(resource);
  expect(again.fencingToken).toBe(second.fencingToken);
  expect(again.lock?.value).toBe(second.value);
  await second.release();
});

it("takes the highest counter among the nodes, and null when none has one", async () => {
  const resource = key("lagging");
  await Promise.all(nodes.map((node) => node.set(resource, "a".repeat(40), "PX", 10_000)));
  expect((await readOne(resource)).fencingToken).toBeNull();
  await nodes[1]!.set(fenceKey(resource), "41");
  await nodes[3]!.set(fenceKey(resource), "42");
  const body = await readOne(resource);
  expect(body.fencingToken).toBe(42);
  expect(body.lock?.nodes.map((node) => node.fencingToken)).toEqual([null, 41, null, 42, null]);
});

it("never lists the fencing counters as locks in the snapshot", async () => {
  const resource = key("listed");
  const lock = await redlock.acquire([resource], 10_000);
  await tc.sync();
  const response = await call<LocksResponse>(locks.GET, "/api/locks?limit=1000");
  const names = response.body.items.map((row) => row.resource);
  expect(names).toContain(resource);
  expect(names.filter((name) => name.startsWith("redlock:"))).toEqual([]);
  await lock.release();
});
