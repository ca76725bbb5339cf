/**
 * "Release everything" of a live holder session (issue 39, deliver 3 and 6), end to end on the
 * shared masters: the real library holds six locks under six using() routines of one Redlock (one
 * session); the real console acts through its route.
 *
 * - Alive, the release asks first, as the lock page does: a revoke marker on every node for each
 *   lock, all with one deadline, a revoke notice naming each lock; nothing is tombstoned or deleted.
 * - Forced ("force anyway"), every lock is tombstoned on every node (none deleted), a notice names
 *   each lock, and every routine's signal aborts with LockForceReleasedError.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as releaseSession from "@/app/api/sessions/[id]/release/route";
import type { ErrorBody, HolderSessionReleaseResponse } from "@/lib/api";
import Redlock, {
  decodeRevokeMarker,
  LockForceReleasedError,
  LockRevokedError,
  noticeChannel,
  revokeKey,
  type RedlockAbortSignal,
} from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls } from "../masters";
import { untilSubscribedEverywhere } from "../redlock/fixtures/console-marks";
import { call, startTestConsole, type TestConsole } from "./helpers";

const LOCKS = 6;
/** Extended every ~500 ms: a notice missed is caught by the next extension. */
const TTL_MS = 1_000;

let tc: TestConsole;
let nodes: Redis[];
const holders: Redlock[] = [];
const values = (resource: string) => Promise.all(nodes.map((node) => node.get(resource)));

beforeAll(async () => {
  tc = startTestConsole(sharedUrls());
  nodes = connect(sharedUrls());
  await tc.ready();
});
afterEach(async () => {
  await Promise.all(holders.splice(0).map((holder) => holder.quit().catch(() => undefined)));
});
afterAll(async () => {
  await tc.close();
  await disconnect(nodes);
});

const untilAborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

/** One holder process: a Redlock with a session holding LOCKS resources under using(). */
async function liveSession() {
  const holder = new Redlock(connect(sharedUrls()), { retryCount: 0 });
  holders.push(holder);
  const resources = Array.from({ length: LOCKS }, () => `${tc.prefix}job:${randomUUID()}`);
  const routines = await Promise.all(
    resources.map(async (resource) => {
      let signal: RedlockAbortSignal | undefined;
      let onHeld = () => undefined as void;
      const held = new Promise<void>((resolve) => (onHeld = resolve));
      const running = holder.using([resource], TTL_MS, async (routineSignal) => {
        signal = routineSignal;
        onHeld();
        await untilAborted(routineSignal);
      });
      running.catch(() => undefined);
      await held;
      return { resource, running, signal: signal! };
    }),
  );
  const sessionId = holder.session!.id;
  await untilSubscribedEverywhere(
    nodes.map((node) => [node]),
    sessionId,
  );
  await tc.sync();
  return { sessionId, resources, routines };
}

/** Every notice published to the session on the first node, from now on. */
async function noticesTo(sessionId: string) {
  const [subscriber] = connect([sharedUrls()[0]!]) as [Redis];
  const received: Array<{ kind: string; resource: string; auditId: string }> = [];
  subscriber.on("message", (_channel: string, message: string) =>
    received.push(JSON.parse(message) as (typeof received)[number]),
  );
  await subscriber.subscribe(noticeChannel(sessionId));
  return { received, close: () => subscriber.disconnect() };
}

const releaseOf = (sessionId: string, body: Record<string, unknown>) =>
  call<HolderSessionReleaseResponse & ErrorBody>(
    releaseSession.POST,
    `/api/sessions/${sessionId}/release`,
    { body: { reason: "wedged worker", ...body } },
  );

describe("release everything of a live 6-lock session", () => {
  it("asks first: a revoke of every lock with one deadline, nothing tombstoned or deleted", async () => {
    const { sessionId, resources, routines } = await liveSession();
    const preview = await releaseOf(sessionId, { preview: true });
    expect(preview.body).toMatchObject({ holderState: "alive", deadlineAt: null });
    expect(preview.body.locks.map((lock) => [lock.action, lock.mode])).toEqual(
      resources.map(() => ["ask", "tombstoned"]),
    );
    const notices = await noticesTo(sessionId);
    try {
      const asked = await releaseOf(sessionId, { deadlineMs: 20_000 });
      expect(asked.status).toBe(200);
      const { deadlineAt, auditId } = asked.body;
      expect(deadlineAt).toBeGreaterThan(Date.now() + 15_000);
      expect(asked.body.locks).toHaveLength(LOCKS);
      for (const lock of asked.body.locks)
        expect(lock).toMatchObject({ action: "ask", outcome: "asked", markedCount: nodes.length });
      for (const resource of resources) {
        // The holder may already have let go (deleted), never was it tombstoned.
        for (const value of await values(resource)) expect(value ?? "rl1:").toMatch(/^rl1:/);
        const markers = await Promise.all(nodes.map((node) => node.get(revokeKey(resource))));
        for (const text of markers)
          expect(decodeRevokeMarker(text!)).toMatchObject({ auditId, deadlineAt });
      }
      await vi.waitFor(() =>
        expect(
          notices.received
            .filter((notice) => notice.kind === "revoke" && notice.auditId === auditId)
            .map((notice) => notice.resource)
            .sort(),
        ).toEqual([...resources].sort()),
      );
      // The holder hears, lets go of each lock itself, and nothing was forced.
      await Promise.all(routines.map(({ running }) => running));
      for (const { signal } of routines) expect(signal.error).toBeInstanceOf(LockRevokedError);
      for (const resource of resources)
        expect(await values(resource)).toEqual(nodes.map(() => null));
      // One follow-up entry per lock: what the holder did by the deadline.
      await vi.waitFor(
        async () => {
          const entries = (await tc.ctx.audit.read(200)).entries.filter((entry) =>
            entry.detail.startsWith(`follow-up of ${auditId}: released by the holder after`),
          );
          expect(entries.flatMap((entry) => entry.resources).sort()).toEqual([...resources].sort());
          for (const entry of entries)
            expect(entry).toMatchObject({ followUpOf: auditId, holderDid: "released" });
        },
        { timeout: 5_000, interval: 100 },
      );
    } finally {
      notices.close();
    }
  });

  it("forced: every lock tombstoned on every node (none deleted), a notice for each, every routine aborts", async () => {
    const { sessionId, resources, routines } = await liveSession();
    const notices = await noticesTo(sessionId);
    try {
      const forced = await releaseOf(sessionId, { force: true });
      expect(forced.status).toBe(200);
      expect(forced.body).toMatchObject({ holderState: "alive", deadlineAt: null });
      expect(forced.body.locks).toHaveLength(LOCKS);
      for (const lock of forced.body.locks)
        expect(lock).toMatchObject({
          action: "force",
          outcome: "released",
          mode: "tombstoned",
          tombstonedCount: nodes.length,
          deletedCount: 0,
        });
      await vi.waitFor(() =>
        expect(
          notices.received
            .filter((notice) => notice.kind === "force-release")
            .map((notice) => notice.resource)
            .sort(),
        ).toEqual([...resources].sort()),
      );
      await Promise.all(routines.map(({ running }) => running));
      for (const { signal } of routines) {
        expect(signal.error).toBeInstanceOf(LockForceReleasedError);
        expect(signal.error).toMatchObject({ auditId: forced.body.auditId });
      }
    } finally {
      notices.close();
    }
  });
});
