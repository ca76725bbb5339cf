/**
 * Issue 44's console: a semaphore of this library is one row of `/api/locks` (its permits folded,
 * `semaphore: { permits, used }`), its page lists the holder of each permit, and a read-write lock
 * is one row with its readers and writer. Exact: a `{x}#0` key without the count key
 * `redlock:semaphore:{x}` stays an ordinary lock, and so does a permit index past the count.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as locks from "@/app/api/locks/route";
import type { ForceReleaseResponse, LockResponse, LockRow, LocksResponse } from "@/lib/api";
import Redlock, { type Lock } from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls } from "../masters";
import { call, startTestConsole, type TestConsole, deleteMarked } from "./helpers";

let tc: TestConsole;
let nodes: Redis[];
let redlock: Redlock;
const marker = `sem-${randomBytes(4).toString("hex")}`;
const name = (what: string) => `${marker}:${what}`;
const held: Lock[] = [];

async function rows(): Promise<LockRow[]> {
  await tc.sync();
  const response = await call<LocksResponse>(
    locks.GET,
    `/api/locks?match=${encodeURIComponent(`*${marker}*`)}`,
  );
  expect(response.status).toBe(200);
  return response.body.items;
}

async function readOne(resource: string): Promise<LockResponse> {
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
  redlock = new Redlock(nodes, { retryCount: 0, owner: { service: "exports" } });
});

afterAll(async () => {
  await Promise.all(held.map((lock) => lock.release().catch(() => undefined)));
  await deleteMarked(nodes, marker);
  await tc.close();
  await disconnect(nodes);
});

describe("a semaphore of this library", () => {
  it("is one row with its permit count and the permits in use, no row per permit", async () => {
    const semaphore = redlock.semaphore(name("exports"), 3);
    held.push(await semaphore.acquire(30_000), await semaphore.acquire(30_000));
    const listed = await rows();
    const row = listed.find((candidate) => candidate.resource === name("exports"));
    expect(row).toMatchObject({
      state: "held",
      semaphore: { kind: "redlock", permits: 3, used: 2 },
    });
    expect(row?.validityMs).toBeGreaterThan(20_000);
    expect(listed.filter((candidate) => candidate.resource.includes("exports"))).toHaveLength(1);
  });

  it("lists the holder of each permit on its page, and the free ones", async () => {
    const detail = await readOne(name("exports"));
    expect(detail.lock).toBeNull();
    expect(detail.group).toMatchObject({
      kind: "semaphore",
      semaphore: { permits: 3, used: 2 },
      readOnly: false,
    });
    const members = detail.group!.members;
    expect(members.map((member) => [member.kind, member.index, member.resource])).toEqual(
      [0, 1, 2].map((index) => ["permit", index, `{${name("exports")}}#${index}`]),
    );
    const heldValues = members.flatMap((member) => (member.lock ? [member.lock.value] : []));
    expect(heldValues.sort()).toEqual(held.map((lock) => lock.value).sort());
    for (const member of members.filter((candidate) => candidate.lock)) {
      expect(member.lock?.owner).toMatchObject({
        kind: "labelled",
        labels: { service: "exports" },
      });
      // Its force-release dialog needs its holder's session, as a lock's page has its holder's.
      expect(member.holderSession).toMatchObject({ id: expect.any(String), state: "alive" });
    }
    expect(members.find((member) => !member.lock)?.holderSession).toBeNull();
  });

  it("keeps every permit key in the walks of the holds (timeline, restart margins), not the row key", async () => {
    await tc.sync();
    const ours = (keys: Iterable<string>) =>
      [...keys].filter((key) => key.includes(name("exports")));
    const permits = held.map((lock) => `{${name("exports")}}#${lock.permit}`).sort();
    expect(ours(tc.ctx.index.keysFrom(""))).toEqual([`{${name("exports")}}#`]);
    expect(ours(tc.ctx.index.lockKeysFrom(""))).toEqual(permits);
    expect(ours(tc.ctx.index.lockKeysFrom("", "held"))).toEqual(permits);
    expect(ours(tc.ctx.index.lockKeysFrom(permits[1]!))).toEqual(permits.slice(1));
  });

  it("force-releases one permit by its own key, the other permit kept", async () => {
    const before = (await readOne(name("exports"))).group!.members.filter((member) => member.lock);
    const [forced, kept] = before;
    const response = await call<ForceReleaseResponse>(
      forceRelease.POST,
      "/api/locks/force-release",
      {
        body: {
          resource: forced!.resource,
          expectedValue: forced!.lock!.value,
          reason: "semaphore test",
        },
      },
    );
    expect(response.status).toBe(200);
    await expect
      .poll(async () => {
        const members = (await readOne(name("exports"))).group!.members;
        const after = (resource: string) =>
          members.find((member) => member.resource === resource)?.lock;
        return [after(forced!.resource)?.state ?? "free", after(kept!.resource)?.value];
      })
      .toEqual([expect.stringMatching(/^(releasing|free)$/), kept!.lock!.value]);
  });

  it("goes from the list once its permits are released", async () => {
    await Promise.all(held.splice(0).map((lock) => lock.release()));
    const listed = await rows();
    expect(listed.find((row) => row.resource === name("exports"))).toBeUndefined();
  });
});

describe("keys that only look like permits", () => {
  it("shows `{x}#0` without the count key as an ordinary lock", async () => {
    held.push(await redlock.acquire([`{${name("lone")}}#0`], 30_000));
    const listed = await rows();
    const row = listed.find((candidate) => candidate.resource === `{${name("lone")}}#0`);
    expect(row).toMatchObject({ state: "held", value: held.at(-1)!.value });
    expect(row?.semaphore).toBeUndefined();
    expect(listed.find((candidate) => candidate.resource === name("lone"))).toBeUndefined();
  });

  it("keeps a permit index past the recorded count an ordinary lock", async () => {
    const semaphore = redlock.semaphore(name("small"), 2);
    held.push(await semaphore.acquire(30_000));
    held.push(await redlock.acquire([`{${name("small")}}#5`], 30_000));
    const listed = await rows();
    expect(listed.find((row) => row.resource === name("small"))).toMatchObject({
      semaphore: { permits: 2, used: 1 },
    });
    expect(listed.find((row) => row.resource === `{${name("small")}}#5`)).toMatchObject({
      state: "held",
    });
  });
});

describe("a read-write lock of this library", () => {
  it("is one row with its readers, and its page lists the readers and the writer", async () => {
    const rw = redlock.readWriteLock(name("catalog"));
    held.push(await rw.read(30_000), await rw.read(30_000));
    const row = (await rows()).find((candidate) => candidate.resource === name("catalog"));
    expect(row).toMatchObject({ state: "held", readWrite: { readers: 2, writer: false } });
    const detail = await readOne(name("catalog"));
    expect(detail.group?.kind).toBe("read-write");
    const members = detail.group!.members;
    expect(members[0]).toMatchObject({ kind: "writer", index: null, lock: null });
    expect(members.filter((member) => member.kind === "reader" && member.lock)).toHaveLength(2);
  });
});
