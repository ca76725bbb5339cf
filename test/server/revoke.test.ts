/**
 * `POST /api/locks/revoke` on the shared masters: who may call it, what it refuses, the marker and
 * the notice it leaves, and the follow-up that audits what the holder did by the deadline. The
 * holder's side (its value with a session, its "releasedAt" record) is written by the test itself,
 * per docs/holder-sessions.md.
 */
import type { Redis } from "ioredis";
import { describe, expect, it, vi } from "vitest";
import * as revoke from "@/app/api/locks/revoke/route";
import type { AuditEntry, ErrorBody, RevokeResponse } from "@/lib/api";
import { revokeKey } from "@redlock-console/redlock";
import { connect, sharedUrls } from "../masters";
import { useHolderConsole } from "./fixtures/holder-console";
import { call } from "./helpers";

const fixture = useHolderConsole();
const { key, valuesOf, setEverywhere, openSession } = fixture;
const sessionValue = async (ttlMs = 60_000) => {
  const session = await openSession();
  return { session, value: session.value(ttlMs) };
};
const revokeOf = (body: unknown, options: Parameters<typeof call>[2] = {}) =>
  call<RevokeResponse & ErrorBody>(revoke.POST, "/api/locks/revoke", { body, ...options });
const auditEntries = async (): Promise<AuditEntry[]> =>
  (await fixture.tc.ctx.audit.read(200)).entries;

describe("POST /api/locks/revoke: who may, and what it refuses", () => {
  const body = () => ({ resource: key("guarded"), expectedValue: "a".repeat(40), reason: "ask" });

  it("answers 401 without the admin credential", async () => {
    const response = await revokeOf(body(), { token: null });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe("unauthorized");
  });

  it("answers 403 to a request from another origin", async () => {
    const response = await revokeOf(body(), { origin: "https://evil.example" });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("cross_origin");
  });

  it.each<[string, unknown]>([
    ["no reason", { resource: "x", expectedValue: "a".repeat(40) }],
    ["a one-letter reason", { resource: "x", expectedValue: "a".repeat(40), reason: "x" }],
    ["no expectedValue", { resource: "x", reason: "ask it" }],
    ["an empty expectedValue", { resource: "x", expectedValue: "", reason: "ask it" }],
    [
      "both resource and resourceBase64",
      { resource: "x", resourceBase64: "eA==", expectedValue: "v", reason: "ask it" },
    ],
    ["neither resource nor resourceBase64", { expectedValue: "v", reason: "ask it" }],
    [
      "deadlineMs as a string",
      { resource: "x", expectedValue: "v", reason: "ask it", deadlineMs: "5000" },
    ],
    [
      "deadlineMs below a second",
      { resource: "x", expectedValue: "v", reason: "ask it", deadlineMs: 10 },
    ],
    [
      "deadlineMs over ten minutes",
      { resource: "x", expectedValue: "v", reason: "ask it", deadlineMs: 1e12 },
    ],
    [
      "a fractional deadlineMs",
      { resource: "x", expectedValue: "v", reason: "ask it", deadlineMs: 1500.5 },
    ],
    ["an unknown field", { resource: "x", expectedValue: "v", reason: "ask it", force: true }],
    ["an array", [1, 2, 3]],
    ["null", null],
    ["a reserved resource", { resource: "redlock:audit", expectedValue: "v", reason: "ask it" }],
    ["bad base64", { resourceBase64: "!!!", expectedValue: "v", reason: "ask it" }],
  ])("answers 400 with the error shape to %s", async (_name, hostile) => {
    const response = await revokeOf(hostile);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toMatch(/^(invalid_request|reserved_resource)$/);
    expect(typeof response.body.error.message).toBe("string");
  });

  it("answers 400 to a body that is not JSON, and 415 to one sent as text", async () => {
    const garbled = await call<ErrorBody>(revoke.POST, "/api/locks/revoke", {
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(garbled.status).toBe(400);
    expect(garbled.body.error.code).toBe("invalid_json");
    const text = await call<ErrorBody>(revoke.POST, "/api/locks/revoke", { rawBody: "hello" });
    expect(text.status).toBe(415);
  });

  it("answers 409 no_session for a holder whose value carries no session id, in the refusal log", async () => {
    await setEverywhere(key("plain"), "b".repeat(40));
    const response = await revokeOf({
      resource: key("plain"),
      expectedValue: "b".repeat(40),
      reason: "please let go",
    });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("no_session");
    expect(response.body.error.message).toContain("can only be force-released");
    expect(await fixture.nodes[0]!.exists(revokeKey(key("plain")))).toBe(0);
    // Refused before any write: summed in the refusal log, never an action (issue 49).
    expect((await auditEntries()).some((found) => found.resources[0] === key("plain"))).toBe(false);
    await fixture.tc.ctx.refusals.flush();
    const { entries } = await fixture.tc.ctx.refusals.read(200);
    expect(entries.find((found) => found.resources[0] === key("plain"))).toMatchObject({
      action: "POST /api/locks/revoke",
      code: "no_session",
      count: 1,
    });
  });

  it("answers 409 value_changed when a node holds another value, marking nothing", async () => {
    const { value } = await sessionValue();
    await setEverywhere(key("moved"), value);
    await fixture.nodes[1]!.set(key("moved"), "c".repeat(40), "PX", 60_000);
    const response = await revokeOf({
      resource: key("moved"),
      expectedValue: value,
      reason: "ask",
    });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("value_changed");
    const details = response.body.error.details as RevokeResponse;
    expect(details.nodes.map((node) => node.outcome)).toEqual([
      "kept",
      "mismatch",
      "kept",
      "kept",
      "kept",
    ]);
    expect(
      await Promise.all(fixture.nodes.map((node) => node.exists(revokeKey(key("moved"))))),
    ).toEqual(Array(5).fill(0));
  });

  it("answers 409 value_changed for a lock already being force-released (a tombstone)", async () => {
    const tombstone = `rlx:${"d".repeat(40)}:{"auditId":"x","by":"token","reason":"r","at":1,"session":"${"e".repeat(32)}"}`;
    await setEverywhere(key("tombstoned"), tombstone);
    const response = await revokeOf({
      resource: key("tombstoned"),
      expectedValue: tombstone,
      reason: "ask",
    });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("value_changed");
    expect(response.body.error.message).toContain("already being force-released");
  });

  it("answers 409 value_changed when the lock is gone", async () => {
    const { value } = await sessionValue();
    const response = await revokeOf({ resource: key("gone"), expectedValue: value, reason: "ask" });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("value_changed");
  });
});

describe("POST /api/locks/revoke: asking the holder", () => {
  it("marks the lock on every node, notifies the holder's session and answers 202", async () => {
    const { session, value } = await sessionValue(20_000);
    await setEverywhere(key("asked"), value, 20_000);
    const [subscriber] = connect([sharedUrls()[2]!]) as [Redis];
    const notices: unknown[] = [];
    subscriber.on("message", (_channel: string, message: string) =>
      notices.push(JSON.parse(message)),
    );
    await subscriber.subscribe(`redlock:notice:{${session.id}}`);
    try {
      const before = Date.now();
      const response = await revokeOf({
        resource: key("asked"),
        expectedValue: value,
        reason: "deploy freeze",
        deadlineMs: 5_000,
      });
      expect(response.status).toBe(202);
      const { auditId, deadlineAt } = response.body;
      expect(response.body).toMatchObject({ resource: key("asked"), sessionId: session.id });
      expect(deadlineAt).toBeGreaterThanOrEqual(before + 5_000);
      expect(response.body.nodes.map((node) => node.outcome)).toEqual(Array(5).fill("marked"));
      const markerKey = revokeKey(key("asked"));
      expect(markerKey).toBe(`redlock:{${key("asked")}}:revoke`);
      for (const node of fixture.nodes) {
        expect(JSON.parse((await node.get(markerKey))!)).toEqual({
          auditId,
          by: "break-glass (token)",
          reason: "deploy freeze",
          at: expect.any(Number),
          deadlineAt,
          value,
        });
        // max(deadline, the lock's PTTL) + 1 s: the lock's 20 s here.
        const pttl = await node.pttl(markerKey);
        expect(pttl).toBeGreaterThan(15_000);
        expect(pttl).toBeLessThanOrEqual(21_000);
      }
      // The lock itself is untouched: the holder releases it.
      expect(await valuesOf(key("asked"))).toEqual(Array(5).fill(value));
      await expect
        .poll(() => notices)
        .toEqual([{ kind: "revoke", resource: key("asked"), auditId }]);
      const entry = (await auditEntries()).find((found) => found.id === auditId);
      expect(entry).toMatchObject({ action: "revoke", outcome: "success", value });
    } finally {
      subscriber.disconnect();
    }
  });

  it("audits 'released by the holder after N ms' once the holder records its release in the marker", async () => {
    const { value } = await sessionValue();
    await setEverywhere(key("released"), value);
    const response = await revokeOf({
      resource: key("released"),
      expectedValue: value,
      reason: "rolling restart",
      deadlineMs: 10_000,
    });
    expect(response.status).toBe(202);
    const markerKey = revokeKey(key("released"));
    // The holder's library: its routine settled 300 ms later; it releases, then records it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await Promise.all(fixture.nodes.map((node) => node.del(key("released"))));
    await Promise.all(
      fixture.nodes.map(async (node) => {
        const marker = JSON.parse((await node.get(markerKey))!) as Record<string, unknown>;
        await node.set(markerKey, JSON.stringify({ ...marker, releasedAt: Date.now() }), "KEEPTTL");
      }),
    );
    await vi.waitFor(
      async () => {
        // Issue 39: the follow-up is found and read by its fields; detail stays the human sentence.
        const followUp = (await auditEntries()).find(
          (found) => found.followUpOf === response.body.auditId,
        );
        expect(followUp).toMatchObject({
          action: "revoke",
          outcome: "success",
          value,
          holderDid: "released",
        });
        const elapsedMs = followUp!.releasedAfterMs!;
        expect(elapsedMs).toBeGreaterThanOrEqual(300);
        expect(elapsedMs).toBeLessThan(5_000);
        expect(followUp!.detail).toBe(
          `follow-up of ${response.body.auditId}: released by the holder after ${elapsedMs} ms`,
        );
      },
      { timeout: 5_000, interval: 100 },
    );
  });

  it("audits 'holder did not release before the deadline' when it never records a release", async () => {
    const { value } = await sessionValue();
    await setEverywhere(key("ignored"), value);
    const response = await revokeOf({
      resource: key("ignored"),
      expectedValue: value,
      reason: "holder ignores us",
      deadlineMs: 1_000,
    });
    expect(response.status).toBe(202);
    await vi.waitFor(
      async () => {
        const followUp = (await auditEntries()).find(
          (found) => found.followUpOf === response.body.auditId,
        );
        expect(followUp).toMatchObject({
          action: "revoke",
          outcome: "failure",
          holderDid: "did-not-release",
          releasedAfterMs: null,
        });
        expect(followUp!.detail).toContain("holder did not release before the deadline");
        expect(followUp!.detail).toContain("still held on 5 node(s)");
      },
      { timeout: 8_000, interval: 200 },
    );
  });
});
