/**
 * Holder sessions in the lock API, on the shared masters: `GET /api/locks/{resource}` carries the
 * holder's session, and force-release acts on its liveness (tombstone, delete, or the operator's
 * choice for a holder without a session). Holder values, heartbeats and connections are written by
 * the test itself, per docs/holder-sessions.md.
 */
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as locks from "@/app/api/locks/route";
import type { ErrorBody, ForceReleaseResponse, LockResponse, LocksResponse } from "@/lib/api";
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
        by: "token",
        reason: "stuck report job",
        at: expect.any(Number),
        session: session.id,
      });
      // The replaced value's PTTL plus drift (ceil(1% of 60 s) + 2 ms): never longer.
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
      expect(entry!.detail).toContain("tombstoned on 5 node(s)");
    } finally {
      notices.stop();
    }
  });

  it("lifts a tombstone when the operator force-releases it in turn (deleted, audited as such)", async () => {
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
    const second = await forceReleaseOf({
      resource: key("lifted"),
      expectedValue: tombstone,
      reason: "cannot wait for the holder",
    });
    expect(second.body).toMatchObject({ mode: "deleted", holderState: "alive", deletedCount: 5 });
    expect(await valuesOf(key("lifted"))).toEqual(Array(5).fill(null));
    const entry = (await fixture.tc.ctx.audit.read(50)).entries.find(
      (found) => found.id === second.body.auditId,
    );
    expect(entry!.detail).toContain(`lifts the tombstone of ${first.body.auditId}`);
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
  });

  it("bounds a tombstone over a value without TTL to one session window", async () => {
    await Promise.all(fixture.nodes.map((node) => node.set(key("no-ttl"), "f".repeat(40))));
    await forceReleaseOf({
      resource: key("no-ttl"),
      expectedValue: "f".repeat(40),
      noSession: "hold-until-ttl",
      reason: "no ttl at all",
    });
    const pttl = await fixture.nodes[0]!.pttl(key("no-ttl"));
    expect(pttl).toBeGreaterThan(50_000);
    expect(pttl).toBeLessThanOrEqual(60_000);
  });

  it("deletes a Redisson hash lock, never tombstones it, without asking about sessions", async () => {
    for (const node of fixture.nodes) await node.hset(key("redisson"), "uuid-2:7", "1");
    await Promise.all(fixture.nodes.map((node) => node.pexpire(key("redisson"), 30_000)));
    const response = await forceReleaseOf({
      resource: key("redisson"),
      expectedValue: "uuid-2:7",
      reason: "jvm gone",
    });
    expect(response.body).toMatchObject({
      mode: "deleted",
      holderState: "unknown",
      deletedCount: 5,
    });
    expect(await fixture.nodes[0]!.exists(key("redisson"))).toBe(0);
  });

  it("with force: true deletes any value, reads no liveness, and still notifies the holder's session", async () => {
    const session = await openSession();
    await session.heartbeat(200);
    await setEverywhere(key("forced-any"), session.value());
    const notices = await listen(session.id);
    try {
      const response = await forceReleaseOf({
        resource: key("forced-any"),
        force: true,
        reason: "split brain cleanup",
      });
      expect(response.body).toMatchObject({ mode: "deleted", holderState: null, deletedCount: 5 });
      await expect.poll(() => notices.messages).toHaveLength(1);
    } finally {
      notices.stop();
    }
  });
});
