/**
 * The holder sessions API on the shared masters: `GET /api/sessions`, `GET /api/sessions/{id}` and
 * `POST /api/sessions/{id}/release` (preview, then the release of everything one session holds, in
 * one audit entry). Heartbeats, lock values and waiter entries carrying the session are written by
 * the test itself, per docs/holder-sessions.md.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { beforeAll, describe, expect, it } from "vitest";
import * as sessionRoute from "@/app/api/sessions/[id]/route";
import * as releaseRoute from "@/app/api/sessions/[id]/release/route";
import * as sessionsRoute from "@/app/api/sessions/route";
import type {
  AuditEntry,
  ErrorBody,
  HolderSessionReleaseResponse,
  HolderSessionResponse,
  HolderSessionsResponse,
} from "@/lib/api";
import { waitersKey } from "@redlock-console/redlock";
import { connect, sharedUrls } from "../masters";
import { useHolderConsole } from "./fixtures/holder-console";
import { call } from "./helpers";

const fixture = useHolderConsole();
const { key, valuesOf, openSession } = fixture;
async function setEverywhere(name: string, value: string, ttlMs = 60_000): Promise<void> {
  await fixture.setEverywhere(name, value, ttlMs);
  await fixture.tc.sync();
}
const release = (id: string, body: unknown, options: Parameters<typeof call>[2] = {}) =>
  call<HolderSessionReleaseResponse & ErrorBody>(releaseRoute.POST, `/api/sessions/${id}/release`, {
    body,
    ...options,
  });

beforeAll(() => fixture.tc.sync());

describe("GET /api/sessions and /api/sessions/{id}", () => {
  it("lists a session with its state, labels, the locks it holds and the resource it waits for", async () => {
    const session = await openSession();
    await session.heartbeat(200);
    await setEverywhere(key("held-1"), session.value());
    await setEverywhere(key("held-2"), session.value());
    // It waits for a lock someone else holds: its waiter entry names the session.
    const waiterId = randomBytes(8).toString("hex");
    const member = JSON.stringify({
      id: waiterId,
      labels: session.labels,
      since: Date.now() - 1_000,
      session: session.id,
    });
    await Promise.all(
      fixture.nodes.map(async (node) => {
        await node.zadd(waitersKey(key("contended")), Date.now() + 30_000, member);
      }),
    );
    await setEverywhere(key("contended"), "a".repeat(40));

    const list = await call<HolderSessionsResponse>(sessionsRoute.GET, "/api/sessions");
    expect(list.status).toBe(200);
    const found = list.body.sessions.find((listed) => listed.id === session.id);
    expect(found).toMatchObject({ state: "alive", labels: session.labels, locksTotal: 2 });
    expect(found!.locks.map((lock) => [lock.resource, lock.state]).sort()).toEqual([
      [key("held-1"), "held"],
      [key("held-2"), "held"],
    ]);
    expect(found!.waits).toEqual([
      {
        resource: key("contended"),
        waiterId,
        since: expect.any(Number),
        expiresAt: expect.any(Number),
      },
    ]);
    expect(list.body.coverage).toMatchObject({ indexComplete: true });

    const one = await call<HolderSessionResponse>(sessionRoute.GET, `/api/sessions/${session.id}`);
    expect(one.status).toBe(200);
    expect(one.body.session).toMatchObject({ id: session.id, state: "alive", locksTotal: 2 });
    expect(one.body.session.lastSeenAt).toBeGreaterThan(Date.now() - 5_000);
  });

  it("finds a session that holds nothing by its heartbeat (the bounded SCAN)", async () => {
    const idle = await openSession();
    await idle.heartbeat(100);
    let found: HolderSessionsResponse["sessions"][number] | undefined;
    for (let attempt = 0; attempt < 50 && !found; attempt += 1) {
      const list = await call<HolderSessionsResponse>(sessionsRoute.GET, "/api/sessions");
      found = list.body.sessions.find((listed) => listed.id === idle.id);
    }
    expect(found).toMatchObject({ state: "alive", locksTotal: 0, locks: [], waits: [] });
  });

  it("answers 404 for a session nobody knows, and 400 for an id that is not one", async () => {
    const unknown = await call<ErrorBody>(sessionRoute.GET, `/api/sessions/${"0".repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    for (const bad of ["xyz", "A".repeat(32), "0".repeat(33), "%00", "..%2F..%2Fetc"]) {
      const response = await call<ErrorBody>(sessionRoute.GET, `/api/sessions/${bad}`);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
    }
  });
});

describe("POST /api/sessions/{id}/release", () => {
  it("answers 401 without the admin credential, 403 from another origin", async () => {
    const id = "1".repeat(32);
    const anonymous = await release(id, { reason: "wedged worker" }, { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe("unauthorized");
    const foreign = await release(
      id,
      { reason: "wedged worker" },
      { origin: "https://evil.example" },
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe("cross_origin");
  });

  it.each<[string, string, unknown]>([
    ["no reason", "1".repeat(32), {}],
    ["a short reason", "1".repeat(32), { reason: "x" }],
    ["preview as a string", "1".repeat(32), { reason: "wedged", preview: "yes" }],
    ["an unknown field", "1".repeat(32), { reason: "wedged", forceAll: true }],
    ["force as a string", "1".repeat(32), { reason: "wedged", force: "yes" }],
    ["a deadline under a second", "1".repeat(32), { reason: "wedged", deadlineMs: 500 }],
    ["an array", "1".repeat(32), []],
    ["a bad session id", "not-a-session", { reason: "wedged" }],
  ])("answers 400 with the error shape to %s", async (_name, id, body) => {
    const response = await release(id, body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_request");
    expect(typeof response.body.error.message).toBe("string");
  });

  // Issue 39: an alive session is asked first (session-release-asks.test.ts); forcing its locks at
  // once is the operator's explicit choice, `force: true`, which this test makes.
  it("previews, then force-releases every lock of the session in one audited action, and notifies it", async () => {
    const session = await openSession();
    await session.heartbeat(200);
    const values = [session.value(), session.value(), session.value()];
    await Promise.all(values.map((value, at) => setEverywhere(key(`mine-${at}`), value)));
    const other = await openSession();
    await setEverywhere(key("theirs"), other.value());

    const preview = await release(session.id, { reason: "wedged worker", preview: true });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ preview: true, auditId: null, holderState: "alive" });
    expect(
      preview.body.locks.map((lock) => [lock.resource, lock.action, lock.mode]).sort(),
    ).toEqual([
      [key("mine-0"), "ask", "tombstoned"],
      [key("mine-1"), "ask", "tombstoned"],
      [key("mine-2"), "ask", "tombstoned"],
    ]);
    expect(await valuesOf(key("mine-0"))).toEqual(Array(5).fill(values[0]));

    const [subscriber] = connect([sharedUrls()[0]!]) as [Redis];
    const notices: Array<{ resource: string }> = [];
    subscriber.on("message", (_channel: string, message: string) =>
      notices.push(JSON.parse(message) as { resource: string }),
    );
    await subscriber.subscribe(`redlock:notice:{${session.id}}`);
    try {
      const released = await release(session.id, { reason: "wedged worker", force: true });
      expect(released.status).toBe(200);
      expect(released.body).toMatchObject({ preview: false, holderState: "alive", remaining: 0 });
      expect(released.body.locks.map((lock) => lock.outcome)).toEqual(Array(3).fill("released"));
      for (let at = 0; at < 3; at += 1) {
        const stored = await valuesOf(key(`mine-${at}`));
        expect(stored.every((value) => value!.startsWith(`rlx:${values[at]!.slice(4, 44)}:`))).toBe(
          true,
        );
      }
      expect(await valuesOf(key("theirs"))).toEqual(Array(5).fill(expect.stringMatching(/^rl1:/)));
      await expect
        .poll(() => notices.map((notice) => notice.resource).sort())
        .toEqual([key("mine-0"), key("mine-1"), key("mine-2")]);
      const entries: AuditEntry[] = (await fixture.tc.ctx.audit.read(100)).entries;
      const entry = entries.find((found) => found.id === released.body.auditId);
      expect(entry).toMatchObject({
        action: "release-session",
        outcome: "success",
        reason: "wedged worker",
      });
      expect(entry!.resources.sort()).toEqual([key("mine-0"), key("mine-1"), key("mine-2")]);
      expect(entry!.detail).toContain(
        `holder session ${session.id} (alive): 3 lock(s): 3 released`,
      );
      // One action: no force-release entry per lock.
      expect(entries.filter((found) => found.id === released.body.auditId)).toHaveLength(1);

      // Its locks now show as being released; another release finds them so and leaves them.
      await fixture.tc.sync();
      const again = await release(session.id, { reason: "wedged worker", preview: true });
      expect(again.body).toMatchObject({ locks: [], alreadyReleasing: 3 });
    } finally {
      subscriber.disconnect();
    }
  });

  it("leaves a lock whose value changed since the index showed it, and says so", async () => {
    const session = await openSession();
    await session.heartbeat(200);
    await setEverywhere(key("raced"), session.value());
    // Another holder took it on one node: the majority value still names the session, so the
    // release tries it, and the check on the nodes leaves it alone.
    await fixture.nodes[0]!.set(key("raced"), "b".repeat(40), "PX", 60_000);
    await fixture.tc.sync();
    const released = await release(session.id, { reason: "wedged worker", force: true });
    expect(released.body.locks).toHaveLength(1);
    expect(released.body.locks[0]).toMatchObject({ outcome: "value_changed", tombstonedCount: 0 });
    expect(await valuesOf(key("raced"))).toEqual([
      "b".repeat(40),
      ...Array(4).fill(expect.stringMatching(/^rl1:/)),
    ]);
    const entry = (await fixture.tc.ctx.audit.read(100)).entries.find(
      (found) => found.id === released.body.auditId,
    );
    expect(entry).toMatchObject({ action: "release-session", outcome: "failure" });
    expect(entry!.detail).toContain("1 changed since (left alone)");
  });
});
