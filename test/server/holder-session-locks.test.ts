/**
 * Holder sessions in the lock API, on the shared masters: `GET /api/locks/{resource}` carries the
 * holder's session, and force-release acts as lib/api/unlock-rule.ts says (a tombstone whatever
 * the liveness, the explicit delete-now, the operator's choice for a holder without a session). Holder values, heartbeats and connections are written by
 * the test itself, per docs/holder-sessions.md.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as locks from "@/app/api/locks/route";
import type { ErrorBody, ForceReleaseResponse, LockResponse, LocksResponse } from "@/lib/api";
import { sessionOfValue } from "@/lib/server/locks/read/ownership";
import { encodeTombstone } from "@/lib/server/locks/read/tombstone";
import { connect, sharedUrls } from "../masters";
import { useHolderConsole } from "./fixtures/holder-console";
import { call } from "./helpers";

const fixture = useHolderConsole();
const { key, valuesOf, openSession } = fixture;
/** Sets `value` on every node, then waits until the live index has it. */
async function setEverywhere(name: string, value: string, ttlMs = 60_000): Promise<void> {
  await fixture.setEverywhere(name, value, ttlMs);
  await fixture.tc.sync();
}
const readLock = (name: string) =>
  call<LockResponse>(lockRoute.GET, `/api/locks/${encodeURIComponent(name)}`);

describe("GET /api/locks/{resource}: the holder's session", () => {
  it("is null for a free resource", async () => {
    const response = await readLock(key("free"));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ lock: null, holderSession: null });
  });

  it("is explicitly unknown for a holder whose value carries no session id", async () => {
    await setEverywhere(key("plain"), "a".repeat(40));
    const response = await readLock(key("plain"));
    expect(response.body.holderSession).toEqual({
      id: null,
      state: "unknown",
      lastSeenAt: null,
      labels: {},
    });
  });

  it("is alive, with its labels and last heartbeat, for a holder whose session beats", async () => {
    const session = await openSession();
    await session.heartbeat(300);
    const value = session.value();
    await setEverywhere(key("alive"), value);
    const before = Date.now();
    const response = await readLock(key("alive"));
    expect(response.body.lock?.value).toBe(value);
    expect(response.body.holderSession).toMatchObject({
      id: session.id,
      state: "alive",
      labels: session.labels,
    });
    expect(response.body.holderSession!.lastSeenAt).toBeGreaterThan(before - 2_000);
  });

  it("is unresponsive when its heartbeat is late, labels then from the lock's value", async () => {
    const session = await openSession();
    await session.heartbeat(10_000, [0, 1]);
    await setEverywhere(key("late"), session.value());
    const response = await readLock(key("late"));
    expect(response.body.holderSession).toMatchObject({ id: session.id, state: "unresponsive" });
    expect(response.body.holderSession!.labels).toEqual(session.labels);
  });
});

/** Subscribes to the session's notice channel on node 0 and collects what arrives. */
async function listen(sessionId: string): Promise<{ messages: unknown[]; stop: () => void }> {
  const [subscriber] = connect([sharedUrls()[0]!]) as [Redis];
  const messages: unknown[] = [];
  subscriber.on("message", (_channel: string, message: string) =>
    messages.push(JSON.parse(message)),
  );
  await subscriber.subscribe(`redlock:notice:{${sessionId}}`);
  return { messages, stop: () => subscriber.disconnect() };
}

const forceReleaseOf = (body: Record<string, unknown>) =>
  call<ForceReleaseResponse>(forceRelease.POST, "/api/locks/force-release", { body });

describe("force-release by the holder's liveness", () => {
  it("replaces an alive holder's value by a tombstone on every node, notifies its session, and shows the lock as being released", async () => {
    const session = await openSession();
    await session.heartbeat(200);
    const value = session.value(60_000);
    await setEverywhere(key("alive-forced"), value);
    const notices = await listen(session.id);
    try {
      const response = await forceReleaseOf({
        resource: key("alive-forced"),
        expectedValue: value,
        reason: "stuck report job",
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        mode: "tombstoned",
        holderState: "alive",
        tombstonedCount: 5,
        deletedCount: 0,
      });
      expect(response.body.nodes.map((node) => node.outcome)).toEqual(Array(5).fill("tombstoned"));
      const { auditId } = response.body;
      const token = value.slice(4, 44);
      const stored = await valuesOf(key("alive-forced"));
      expect(new Set(stored).size).toBe(1);
      const tombstone = stored[0]!;
      expect(tombstone.startsWith(`rlx:${token}:`)).toBe(true);
      expect(JSON.parse(tombstone.slice(45))).toEqual({
        auditId,
        by: "break-glass (token)",
        reason: "stuck report job",
        at: expect.any(Number),
        session: session.id,
      });
      // The replaced value's PTTL plus the library's drift (round(0.01 × 60 s) + 2 ms): never longer.
      expect(response.body.reservedUntil).toBeGreaterThan(Date.now() + 55_000);
      expect(response.body.reservedUntil).toBeLessThanOrEqual(response.body.serverTime + 60_602);
      expect(response.body).toMatchObject({ majority: true, overlapPossibleUntil: null });
      expect(response.body.summary).toContain("nobody else gets it for at most");
      for (const node of fixture.nodes) {
        const pttl = await node.pttl(key("alive-forced"));
        expect(pttl).toBeGreaterThan(55_000);
        expect(pttl).toBeLessThanOrEqual(60_602);
      }
      // Every library sees it held.
      expect(
        await fixture.nodes[0]!.set(key("alive-forced"), "other", "PX", 1_000, "NX"),
      ).toBeNull();
      await expect
        .poll(() => notices.messages)
        .toEqual([{ kind: "force-release", resource: key("alive-forced"), auditId }]);
      await fixture.tc.sync();
      const read = await readLock(key("alive-forced"));
      expect(read.body.lock).toMatchObject({ state: "releasing", format: "tombstone" });
      expect(read.body.holderSession).toMatchObject({ id: session.id, state: "alive" });
      const list = await call<LocksResponse>(locks.GET, `/api/locks?match=${key("alive-forced")}`);
      expect(list.body.items[0]).toMatchObject({ state: "releasing" });
      expect(list.body.counts.releasing).toBeGreaterThanOrEqual(1);
      const entry = (await fixture.tc.ctx.audit.read(50)).entries.find(
        (found) => found.id === auditId,
      );
      expect(entry).toMatchObject({ action: "force-release", outcome: "success", value });
      expect(entry!.detail).toContain("holder alive");
      expect(entry!.detail).toContain("tombstoned on 5 of 5 node(s)");
    } finally {
      notices.stop();
    }
  });

  // Issue 39: a second force-release never lengthens a tombstone; lifting one is delete-now.
  it("leaves a tombstone as it is when forced again, and lifts it only by the explicit delete-now (audited as such)", async () => {
    const session = await openSession();
    await session.heartbeat(200);
    const value = session.value();
    await setEverywhere(key("lifted"), value);
    const first = await forceReleaseOf({
      resource: key("lifted"),
      expectedValue: value,
      reason: "first press",
    });
    const tombstone = (await valuesOf(key("lifted")))[0]!;
    // The longest a tombstone has left on any node: the answer's reservedUntil is where a majority's
    // runs out, which may be on a node other than the first (each node's write lands a little apart).
    const pttlBefore = Math.max(
      ...(await Promise.all(fixture.nodes.map((node) => node.pttl(key("lifted"))))),
    );
    const again = await forceReleaseOf({
      resource: key("lifted"),
      expectedValue: tombstone,
      reason: "pressed again",
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      mode: "unchanged",
      deletedCount: 0,
      tombstonedCount: 0,
      reservedCount: 5,
    });
    expect(again.body.nodes.map((node) => node.outcome)).toEqual(Array(5).fill("reserved"));
    expect(again.body.summary).toContain("already reserved by an earlier force-release until");
    expect(again.body.reservedUntil).toBeLessThanOrEqual(again.body.serverTime + pttlBefore);
    expect(await valuesOf(key("lifted"))).toEqual(Array(5).fill(tombstone));
    expect(await fixture.nodes[0]!.pttl(key("lifted"))).toBeLessThanOrEqual(pttlBefore);

    const second = await forceReleaseOf({
      resource: key("lifted"),
      expectedValue: tombstone,
      disposal: "delete-now",
      reason: "cannot wait for the holder",
    });
    expect(second.body).toMatchObject({ mode: "deleted", holderState: "alive", deletedCount: 5 });
    expect(second.body.overlapPossibleUntil).toBeGreaterThan(second.body.serverTime);
    expect(await valuesOf(key("lifted"))).toEqual(Array(5).fill(null));
    const entry = (await fixture.tc.ctx.audit.read(50)).entries.find(
      (found) => found.id === second.body.auditId,
    );
    expect(entry!.detail).toContain(`lifts the tombstone of ${first.body.auditId}`);
    expect(entry!.detail).toContain("explicit delete-now");
    expect(entry!.detail).toContain(
      `may make two holders until ${new Date(second.body.overlapPossibleUntil!).toISOString().slice(0, 16)}`,
    );
  });

  it("tombstones an unresponsive holder's lock too", async () => {
    const session = await openSession();
    await session.heartbeat(10_000);
    const value = session.value(30_000);
    await setEverywhere(key("paused-forced"), value, 30_000);
    const response = await forceReleaseOf({
      resource: key("paused-forced"),
      expectedValue: value,
      reason: "holder paused",
    });
    expect(response.body).toMatchObject({ mode: "tombstoned", holderState: "unresponsive" });
    expect(
      (await valuesOf(key("paused-forced"))).every((stored) => stored!.startsWith("rlx:")),
    ).toBe(true);
  });

  it("refuses (400) a holder without a session unless the operator says noSession, changing nothing", async () => {
    await setEverywhere(key("no-session"), "c".repeat(40));
    const response = await call<ErrorBody>(forceRelease.POST, "/api/locks/force-release", {
      body: { resource: key("no-session"), expectedValue: "c".repeat(40), reason: "who holds it?" },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_request");
    expect(response.body.error.message).toContain("noSession");
    expect(response.body.error.message).toContain("release-now");
    expect(await valuesOf(key("no-session"))).toEqual(Array(5).fill("c".repeat(40)));
  });

  it("holds a holder without a session until its TTL when the operator chooses so, and deletes it on release-now", async () => {
    await setEverywhere(key("hold"), "d".repeat(40), 20_000);
    const held = await forceReleaseOf({
      resource: key("hold"),
      expectedValue: "d".repeat(40),
      noSession: "hold-until-ttl",
      reason: "let it run out",
    });
    expect(held.body).toMatchObject({ mode: "tombstoned", holderState: "unknown" });
    const stored = (await valuesOf(key("hold")))[0]!;
    // A bare 40-hex token (node-redlock) is the tombstone's token; no session to name.
    expect(stored.startsWith(`rlx:${"d".repeat(40)}:`)).toBe(true);
    expect(JSON.parse(stored.slice(45))).not.toHaveProperty("session");
    expect(await fixture.nodes[0]!.pttl(key("hold"))).toBeLessThanOrEqual(20_000 + 202);
    const entry = (await fixture.tc.ctx.audit.read(50)).entries.find(
      (found) => found.id === held.body.auditId,
    );
    expect(entry!.detail).toContain("operator chose hold-until-ttl");

    await setEverywhere(key("now"), "e".repeat(40));
    const now = await forceReleaseOf({
      resource: key("now"),
      expectedValue: "e".repeat(40),
      noSession: "release-now",
      reason: "accept the overlap",
    });
    expect(now.body).toMatchObject({ mode: "deleted", holderState: "unknown", deletedCount: 5 });
    expect(await valuesOf(key("now"))).toEqual(Array(5).fill(null));
    // release-now is the explicit delete-now: audited as such, with until when it may overlap.
    expect(now.body.summary).toContain("may make two holders until");
    const deleted = (await fixture.tc.ctx.audit.read(50)).entries.find(
      (found) => found.id === now.body.auditId,
    );
    expect(deleted!.detail).toContain("explicit delete-now");
    expect(deleted!.detail).toContain("may make two holders until");
  });

  it("bounds a tombstone over a value without TTL to one session window", async () => {
    // Without a TTL only a value of this library's format is a lock (lock-format.ts): no session.
    const value = `rl1:${"f".repeat(40)}:{"acquiredAt":${Date.now()},"ttlMs":30000,"labels":{}}`;
    await Promise.all(fixture.nodes.map((node) => node.set(key("no-ttl"), value)));
    await forceReleaseOf({
      resource: key("no-ttl"),
      expectedValue: value,
      noSession: "hold-until-ttl",
      reason: "no ttl at all",
    });
    const pttl = await fixture.nodes[0]!.pttl(key("no-ttl"));
    expect(pttl).toBeGreaterThan(50_000);
    expect(pttl).toBeLessThanOrEqual(60_000);
  });

  // Issue 39: a Redisson hash cannot hold a string tombstone, so it is deleted only knowingly.
  it("refuses (409) a Redisson hash lock without delete-now, changing nothing; deletes it with it", async () => {
    for (const node of fixture.nodes) await node.hset(key("redisson"), "uuid-2:7", "1");
    await Promise.all(fixture.nodes.map((node) => node.pexpire(key("redisson"), 30_000)));
    const refused = await call<ErrorBody>(forceRelease.POST, "/api/locks/force-release", {
      body: { resource: key("redisson"), expectedValue: "uuid-2:7", reason: "jvm gone" },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("hash_lock_needs_delete_now");
    expect(await Promise.all(fixture.nodes.map((node) => node.exists(key("redisson"))))).toEqual(
      Array(5).fill(1),
    );
    const anyValue = await call<ErrorBody>(forceRelease.POST, "/api/locks/force-release", {
      body: { resource: key("redisson"), force: true, reason: "jvm gone" },
    });
    expect(anyValue.status).toBe(409);
    expect(anyValue.body.error.code).toBe("hash_lock_needs_delete_now");
    expect(await fixture.nodes[0]!.hget(key("redisson"), "uuid-2:7")).toBe("1");
    const response = await forceReleaseOf({
      resource: key("redisson"),
      expectedValue: "uuid-2:7",
      disposal: "delete-now",
      reason: "jvm gone",
    });
    expect(response.body).toMatchObject({
      mode: "deleted",
      holderState: "unknown",
      deletedCount: 5,
    });
    expect(response.body.overlapPossibleUntil).toBeGreaterThan(response.body.serverTime + 25_000);
    expect(await fixture.nodes[0]!.exists(key("redisson"))).toBe(0);
  });

  it("answers absent, never deleted, when no node holds the value", async () => {
    const response = await forceReleaseOf({
      resource: key("never-held"),
      expectedValue: "9".repeat(40),
      noSession: "release-now",
      reason: "nothing there",
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      mode: "absent",
      deletedCount: 0,
      tombstonedCount: 0,
      majority: false,
      reservedUntil: null,
    });
  });

  it("tombstones a value that stands on a minority only and says so: majority false", async () => {
    const session = await openSession();
    await session.heartbeat(200);
    const value = session.value(30_000);
    await Promise.all(
      fixture.nodes.slice(0, 2).map((node) => node.set(key("minority"), value, "PX", 30_000)),
    );
    const notices = await listen(session.id);
    try {
      const response = await forceReleaseOf({
        resource: key("minority"),
        expectedValue: value,
        reason: "after a restart",
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        mode: "tombstoned",
        tombstonedCount: 2,
        majority: false,
        reservedUntil: null,
      });
      expect(response.body.summary).toContain("stood on 2 node(s) only");
      await expect.poll(() => notices.messages).toHaveLength(1);
    } finally {
      notices.stop();
    }
  });

  // Issue 39: force: true (no value known) tombstones too, each node's from what it holds.
  it("with force: true tombstones each node's value from what that node holds, reads no liveness, and notifies every session found", async () => {
    const session = await openSession();
    await session.heartbeat(200);
    const other = await openSession();
    await other.heartbeat(200);
    const mine = session.value(30_000);
    const theirs = other.value(30_000);
    const bare = "7".repeat(40);
    // redsync's shape (16 random bytes, raw base64): another library's lock, still force-released.
    const foreign = "c2VjcmV0LXJlZHN5bmMtdg";
    const held = [mine, mine, theirs, bare, foreign];
    await Promise.all(
      fixture.nodes.map((node, index) => node.set(key("forced-any"), held[index]!, "PX", 30_000)),
    );
    await fixture.tc.sync();
    const notices = await listen(session.id);
    const otherNotices = await listen(other.id);
    try {
      const response = await forceReleaseOf({
        resource: key("forced-any"),
        force: true,
        reason: "split brain cleanup",
      });
      expect(response.body).toMatchObject({
        mode: "tombstoned",
        holderState: null,
        deletedCount: 0,
        tombstonedCount: 5,
      });
      const { auditId } = response.body;
      const stored = await valuesOf(key("forced-any"));
      const tokens = stored.map((value) => value!.slice(4, 44));
      expect(tokens).toEqual([
        mine.slice(4, 44),
        mine.slice(4, 44),
        theirs.slice(4, 44),
        bare,
        createHash("sha1").update(foreign).digest("hex"),
      ]);
      // Each tombstone is what the console's encoder writes for that node's value.
      stored.forEach((tombstone, index) => {
        const fields = JSON.parse(tombstone!.slice(45)) as { at: number };
        const session = sessionOfValue(held[index]!);
        expect(tombstone).toBe(
          encodeTombstone(held[index]!, {
            auditId,
            by: "break-glass (token)",
            reason: "split brain cleanup",
            at: fields.at,
            ...(session === null ? {} : { session }),
          }),
        );
      });
      for (const node of fixture.nodes) {
        expect(await node.pttl(key("forced-any"))).toBeGreaterThan(25_000);
        expect(await node.pttl(key("forced-any"))).toBeLessThanOrEqual(30_000 + 302);
      }
      await expect
        .poll(() => notices.messages)
        .toEqual([{ kind: "force-release", resource: key("forced-any"), auditId }]);
      await expect.poll(() => otherNotices.messages).toHaveLength(1);
      // A second force: true leaves each tombstone as it is.
      const again = await forceReleaseOf({
        resource: key("forced-any"),
        force: true,
        reason: "pressed again",
      });
      expect(again.body).toMatchObject({ mode: "unchanged", reservedCount: 5, tombstonedCount: 0 });
      expect(again.body.summary).toContain("already reserved by an earlier force-release until");
      expect(await valuesOf(key("forced-any"))).toEqual(stored);
    } finally {
      notices.stop();
      otherNotices.stop();
    }
  });
});
