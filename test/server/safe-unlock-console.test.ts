// test-group: timed
/**
 * Safe on-call unlock end to end (issue 31): the real library holds the lock, the real console acts
 * on it through its routes (admin token), on the very same lock nodes, for all four client kinds
 * of the holder: ioredis and node-redis clients, on single masters (the five shared ones) and on
 * Redis Clusters (three lock nodes, each a 3-primary cluster, named `?cluster=true` to the
 * console). Nothing of docs/holder-sessions.md is played by the test: the console writes the
 * tombstones, markers and notices, the library reads them.
 *
 * - force-release of a live using() holder: its signal aborts with LockForceReleasedError naming
 *   the audit id on the console's notice (within ABORT_GUARD_MS of its answer), and a contender retrying every 10 ms gets
 *   the lock only after the holder's routine settled (ROUNDS rounds per kind; the figures are
 *   printed at the end of the file);
 * - force: true (no value known) on a live using() holder: tombstoned, not deleted; a contender
 *   never works while the holder's routine runs (issue 39);
 * - a holder that ignores its signal keeps nobody out past the replaced value's validity, and its
 *   value never comes back (no extension);
 * - a notice lost (the console's PUBLISH suppressed) is caught by the holder's next extension;
 * - a forged PUBLISH (no tombstone, no marker) aborts nobody;
 * - revoke: LockRevokedError, the routine finishes while the lock is still extended, the library
 *   releases and records it, and the console's follow-up audits "released by the holder after N ms";
 * - revoke of a node-redlock lock: 409 no_session;
 * - release everything of a session (preview, then release) with three using() locks: all
 *   tombstoned, the three signals abort, the holder's acks free them.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import NodeRedlock from "redlock";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as audit from "@/app/api/audit/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as revoke from "@/app/api/locks/revoke/route";
import * as releaseSession from "@/app/api/sessions/[id]/release/route";
import type {
  AuditResponse,
  ErrorBody,
  ForceReleaseResponse,
  HolderSessionReleaseResponse,
  RevokeResponse,
} from "@/lib/api";
import Redlock, {
  decodeRevokeMarker,
  LockForceReleasedError,
  LockRevokedError,
  noticeChannel,
  revokeKey,
  type RedlockAbortSignal,
  type Settings,
} from "@redlock-console/redlock";
import type { ClientKind } from "../lock-clients";
import { sleep } from "../masters";
import { untilSubscribedEverywhere } from "../redlock/fixtures/console-marks";
import { useLockNodes, type Topology } from "../redlock/fixtures/lock-nodes";
import { overlapsIn, type Interval } from "./fixtures/using-holder-process";
import { call, consoleUrlsOf, startTestConsole, type TestConsole } from "./helpers";

/** Set by the dropped-notice test: the console's PUBLISH of notices goes nowhere. */
const notices = vi.hoisted(() => ({ suppressed: false }));
vi.mock("@/lib/server/sessions/notice", async (importOriginal) => {
  const original = await importOriginal<typeof import("@/lib/server/sessions/notice")>();
  return {
    ...original,
    publishNotice: (...args: Parameters<typeof original.publishNotice>) =>
      notices.suppressed ? Promise.resolve(0) : original.publishNotice(...args),
  };
});

/** The first test's holder: using() with a 10 s TTL, as in the issue. */
const LONG_TTL_MS = 10_000;
/**
 * The other tests': extended every ~1.5 s (the default 500 ms threshold), so they run quickly. It
 * was 1 s: on a loaded machine a holder with 500 ms to spare lost its lock before the test acted
 * (issue 48: a value gone before the force-release, a lock missing from the session's preview).
 */
const SHORT_TTL_MS = 2_000;
/** The revoked routine's work: longer than the TTL, so only the extensions keep it held. */
const REVOKED_WORK_MS = SHORT_TTL_MS + 500;
/**
 * A signal aborts on the console's notice: 100 ms is the promise, measured by bench/safe-unlock.ts
 * (abort latency, PUBLISH → signal aborted) with its distribution. Here only a bound ten times as
 * wide, so that a slow machine cannot fail it: without the notice, a LONG_TTL_MS holder would learn
 * of a force-release only at its next extension, seconds later.
 */
const ABORT_GUARD_MS = 1_000;
/**
 * What the console reads of a live holder when it acts: alive, or unresponsive when a loaded
 * machine delayed its heartbeat (issue 48); never gone. The path taken is the same for both.
 */
const NOT_GONE = expect.stringMatching(/^(alive|unresponsive)$/);
/** The holder's TTL in the test where it ignores its signal. */
const IGNORED_TTL_MS = 2_000;
/** Force-release rounds per client kind (the abort latency's distribution is bench/safe-unlock.ts's). */
const ROUNDS = 4;
/** How long the holder's routine goes on working after its signal aborted. */
const WIND_DOWN_MS = 300;

const HOLDER_KINDS = ["ioredis", "node-redis"] as const satisfies readonly ClientKind[];

/**
 * Per round, for the summary: from the console's answer (and from the request) to the holder's
 * abort, and from the routine's settling to the contender's acquire (negative: an overlap).
 */
const figures: Array<{
  kind: string;
  fromAnswerMs: number;
  fromRequestMs: number;
  gapMs: number;
}> = [];

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const sortedOf = (field: "fromAnswerMs" | "fromRequestMs", kind?: string) =>
  figures
    .filter((f) => kind === undefined || f.kind === kind)
    .map((f) => f[field])
    .sort((a, b) => a - b);
const spread = (sorted: readonly number[]) =>
  `p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, ` +
  `max ${sorted.at(-1)!.toFixed(1)} ms`;

afterAll(() => {
  if (figures.length === 0) return;
  const kinds = [...new Set(figures.map((f) => f.kind))].map(
    (kind) => `${kind}: p50 ${percentile(sortedOf("fromAnswerMs", kind), 50).toFixed(1)} ms`,
  );
  console.info(
    `force-release → using() signal aborted, over ${figures.length} rounds (negative: before the ` +
      `answer arrived): from the console's answer ${spread(sortedOf("fromAnswerMs"))} ` +
      `(${kinds.join("; ")}); from the request ${spread(sortedOf("fromRequestMs"))}. ` +
      `Routine settled → contender acquired: min ${Math.min(...figures.map((f) => f.gapMs)).toFixed(1)} ms ` +
      `(negative would be an overlap).`,
  );
});

/** performance.now() at which `signal` aborts. */
const abortedAt = (signal: AbortSignal) =>
  new Promise<number>((resolve) =>
    signal.addEventListener("abort", () => resolve(performance.now()), { once: true }),
  );

const untilAborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

for (const topology of ["single", "cluster"] as const satisfies readonly Topology[])
  describe(`${topology} lock nodes, the console on the same nodes`, () => {
    const nodes = useLockNodes(topology);
    let tc: TestConsole;
    beforeAll(async () => {
      tc = startTestConsole(consoleUrlsOf(nodes().specs));
      await tc.ready();
    });
    afterAll(() => tc?.close());

    const readers = () => nodes().readers;
    const values = (key: string) => Promise.all(readers().map((reader) => reader.get(key)));
    const holding = async (resource: string, value: string) =>
      (await values(resource)).filter((found) => found === value).length;
    const quorum = () => Math.floor(readers().length / 2) + 1;
    const resourceNamed = (name: string) => `${tc.prefix}${name}:${randomUUID()}`;

    const instances: Redlock[] = [];
    afterEach(async () => {
      notices.suppressed = false;
      await Promise.all(
        instances.splice(0).map((redlock) => redlock.quit().catch(() => undefined)),
      );
    });

    /** A Redlock on clients of its own, as another process would have. */
    async function instance(kind: ClientKind, settings: Partial<Settings> = {}): Promise<Redlock> {
      const redlock = new Redlock(await nodes().clients(kind), { retryCount: 0, ...settings });
      instances.push(redlock);
      return redlock;
    }

    /** Acquires `resource` retrying every 10 ms; resolves with the moment it acquired. */
    async function contend(
      contender: Redlock,
      resource: string,
    ): Promise<{ acquiredAt: number; value: string }> {
      const lock = await contender.acquire([resource], 10_000, {
        retryCount: -1,
        retryDelay: 10,
        retryJitter: 0,
        signal: AbortSignal.timeout(20_000),
      });
      const acquiredAt = performance.now();
      return { acquiredAt, value: lock.value };
    }

    /**
     * Runs `routine` under using() on `resource`; resolves once the lock is held and the session's
     * notice channel is subscribed on every node, with the lock's value.
     */
    async function hold(
      redlock: Redlock,
      resource: string,
      ttlMs: number,
      routine: (signal: RedlockAbortSignal) => Promise<void>,
    ) {
      let signal: RedlockAbortSignal | undefined;
      let onHeld = () => undefined as void;
      const held = new Promise<void>((resolve) => (onHeld = resolve));
      const running = redlock.using([resource], ttlMs, async (routineSignal) => {
        signal = routineSignal;
        onHeld();
        await routine(routineSignal);
      });
      running.catch(() => undefined);
      await held;
      await untilSubscribedEverywhere(nodes().servers, redlock.session!.id);
      const value = (await values(resource)).find((found) => found !== null)!;
      return { running, signal: signal!, value };
    }

    const forceReleaseOf = (resource: string, expectedValue: string, reason: string) =>
      call<ForceReleaseResponse & ErrorBody>(forceRelease.POST, "/api/locks/force-release", {
        body: { resource, expectedValue, reason },
      });

    for (const kind of HOLDER_KINDS)
      describe(`a ${kind} holder`, () => {
        it(`force-released through the console: its using() signal aborts on the console's notice with the audit id, and a contender retrying every 10 ms acquires only after the routine settled (${ROUNDS} rounds)`, async () => {
          const holder = await instance(kind);
          const contender = await instance(kind);
          for (let round = 0; round < ROUNDS; round += 1) {
            const resource = resourceNamed("report-job");
            let settledAt = 0;
            const { running, signal, value } = await hold(
              holder,
              resource,
              LONG_TTL_MS,
              async (signal) => {
                await untilAborted(signal);
                await sleep(WIND_DOWN_MS); // the routine winds down
                settledAt = performance.now();
              },
            );
            const aborted = abortedAt(signal);
            const contending = contend(contender, resource);
            const requestedAt = performance.now();
            const response = await forceReleaseOf(resource, value, "stuck report job");
            const answeredAt = performance.now();
            expect(response.status).toBe(200);
            expect(response.body).toMatchObject({ mode: "tombstoned", holderState: NOT_GONE });
            expect(response.body.tombstonedCount).toBe(readers().length);
            const abortAt = await aborted;
            expect(abortAt - answeredAt).toBeLessThanOrEqual(ABORT_GUARD_MS);
            expect(signal.error).toBeInstanceOf(LockForceReleasedError);
            expect(signal.error).toMatchObject({
              resource,
              auditId: response.body.auditId,
              by: "break-glass (token)",
              reason: "stuck report job",
            });
            await running;
            const { acquiredAt, value: next } = await contending;
            expect(acquiredAt).toBeGreaterThanOrEqual(settledAt);
            figures.push({
              kind: `${kind} ${topology}`,
              fromAnswerMs: abortAt - answeredAt,
              fromRequestMs: abortAt - requestedAt,
              gapMs: acquiredAt - settledAt,
            });
            expect(await holding(resource, next)).toBeGreaterThanOrEqual(quorum());
            await sleep(20); // the holder's last deletes on the minority (after its majority answered)
            expect(await holding(resource, value)).toBe(0);
          }
          // Rounds of seconds each under load: a deadline for all of them, not a speed.
        }, 120_000);

        // Issue 39: `force: true` (a script that does not know the value) tombstones too; it used
        // to delete at once, and a contender acquired 37-60 ms later while the routine still ran.
        it("force: true on a live using() holder: a contender retrying every 10 ms never acquires while its routine runs (an independent journal), and the holder's signal aborts", async () => {
          const resource = resourceNamed("forced-any");
          const holder = await instance(kind);
          const contender = await instance(kind);
          const journal: Interval[] = [];
          const { running, signal } = await hold(holder, resource, LONG_TTL_MS, async (signal) => {
            const startMs = performance.now();
            await untilAborted(signal);
            await sleep(WIND_DOWN_MS);
            journal.push({ who: "holder", startMs, endMs: performance.now() });
          });
          const aborted = abortedAt(signal);
          const contending = (async () => {
            const lock = await contender.acquire([resource], 10_000, {
              retryCount: -1,
              retryDelay: 10,
              retryJitter: 0,
              signal: AbortSignal.timeout(20_000),
            });
            const startMs = performance.now();
            await sleep(50);
            journal.push({ who: "contender", startMs, endMs: performance.now() });
            await lock.release();
          })();
          const response = await call<ForceReleaseResponse & ErrorBody>(
            forceRelease.POST,
            "/api/locks/force-release",
            { body: { resource, force: true, reason: "script cleanup" } },
          );
          const answeredAt = performance.now();
          expect(response.status).toBe(200);
          expect(response.body).toMatchObject({
            mode: "tombstoned",
            holderState: null,
            deletedCount: 0,
            tombstonedCount: readers().length,
            majority: true,
          });
          expect((await aborted) - answeredAt).toBeLessThanOrEqual(ABORT_GUARD_MS);
          expect(signal.error).toBeInstanceOf(LockForceReleasedError);
          expect(signal.error).toMatchObject({ resource, auditId: response.body.auditId });
          await running;
          await contending;
          expect(journal.map((entry) => entry.who).sort()).toEqual(["contender", "holder"]);
          expect(overlapsIn(journal)).toEqual([]);
        });

        it("a holder that ignores its signal keeps nobody out past the replaced value's validity, and gets no extension", async () => {
          const resource = resourceNamed("ignored");
          const holder = await instance(kind);
          let settled = false;
          // Ignores its signal: works on until the contender holds the lock (a barrier).
          let contenderHolds = () => undefined as void;
          const barrier = new Promise<void>((resolve) => (contenderHolds = resolve));
          const { running, signal, value } = await hold(
            holder,
            resource,
            IGNORED_TTL_MS,
            async () => {
              await barrier;
              settled = true;
            },
          );
          const readAt = performance.now();
          const pttls = await Promise.all(readers().map((reader) => reader.pttl(resource)));
          const response = await forceReleaseOf(resource, value, "ignores its signal");
          expect(response.body).toMatchObject({ mode: "tombstoned", holderState: NOT_GONE });
          // The tombstone lasts the replaced value's PTTL plus drift (ceil(1% of the TTL) + 2 ms):
          // never longer than the TTL it replaced, whatever the speed (nobody acknowledges).
          const tombstonePttls = await Promise.all(
            readers().map((reader) => reader.pttl(resource)),
          );
          // (-2: already gone, on a machine that stalled past it; the contender's wait below shows
          // it did not go early.)
          for (const pttl of tombstonePttls)
            expect(pttl === -2 || (pttl > 0 && pttl <= IGNORED_TTL_MS + 22), `PTTL ${pttl}`).toBe(
              true,
            );
          const contender = await instance(kind);
          let acquired = false;
          const contending = contend(contender, resource).finally(() => (acquired = true));
          // Never extended again: its value never comes back on any node while the tombstone stands.
          while (!acquired) {
            expect(await holding(resource, value)).toBe(0);
            await sleep(50);
          }
          const { acquiredAt, value: next } = await contending;
          // Not before the replaced value's validity ran out: nobody acknowledged. How soon after it
          // the retrying contender gets in is a latency of the machine (issue 48: it was asserted
          // ≤ PTTL + 172 ms, and took 5 s beside two busy loops); the tombstone's PTTL above is
          // what bounds it.
          expect(acquiredAt - readAt).toBeGreaterThanOrEqual(Math.min(...pttls) - 2);
          expect(settled).toBe(false);
          expect(signal.error).toBeInstanceOf(LockForceReleasedError);
          const granted = await holding(resource, next);
          expect(granted).toBeGreaterThanOrEqual(quorum());
          contenderHolds();
          await running; // its release at the end leaves the next holder's lock alone
          expect(await holding(resource, next)).toBe(granted);
          expect(await holding(resource, value)).toBe(0);
        });

        it("a dropped notice (the console's PUBLISH lost) is caught by the holder's next extension", async () => {
          const resource = resourceNamed("notice-lost");
          const holder = await instance(kind);
          const { running, signal, value } = await hold(
            holder,
            resource,
            SHORT_TTL_MS,
            untilAborted,
          );
          const aborted = abortedAt(signal);
          notices.suppressed = true;
          const forcedAt = performance.now();
          const response = await forceReleaseOf(resource, value, "notice lost");
          notices.suppressed = false;
          expect(response.body).toMatchObject({ mode: "tombstoned", holderState: NOT_GONE });
          // The next extension meets the tombstone (one period, ~1.5 s; ten TTLs bound it here:
          // without the extension's check nothing would abort at all).
          expect((await aborted) - forcedAt).toBeLessThanOrEqual(10 * SHORT_TTL_MS);
          expect(signal.error).toBeInstanceOf(LockForceReleasedError);
          expect(signal.error).toMatchObject({ resource, auditId: response.body.auditId });
          await running;
          // The holder's release after its routine settled is the ack: the tombstone is gone.
          await vi.waitFor(async () =>
            expect(await values(resource)).toEqual(readers().map(() => null)),
          );
        });

        it("a forged PUBLISH (no tombstone, no marker) aborts nobody", async () => {
          const resource = resourceNamed("forged");
          const holder = await instance(kind);
          let done = () => undefined as void;
          const finished = new Promise<void>((resolve) => (done = resolve));
          const { running, signal, value } = await hold(
            holder,
            resource,
            SHORT_TTL_MS,
            () => finished,
          );
          const channel = noticeChannel(holder.session!.id);
          for (const kind of ["force-release", "revoke"])
            await Promise.all(
              readers().map((reader) =>
                reader.publish(channel, JSON.stringify({ kind, resource, auditId: randomUUID() })),
              ),
            );
          await sleep(2.5 * (SHORT_TTL_MS - 500)); // two extensions went by
          expect(signal.aborted).toBe(false);
          expect(await holding(resource, value)).toBeGreaterThanOrEqual(quorum());
          done();
          await running;
        });

        it("revoked through the console: LockRevokedError, the routine finishes while the lock is still extended, the library releases it and the console audits 'released by the holder after N ms'", async () => {
          const resource = resourceNamed("revoked");
          const holder = await instance(kind);
          let stillHeldAtEnd = 0;
          const { running, signal, value } = await hold(
            holder,
            resource,
            SHORT_TTL_MS,
            async (signal) => {
              await untilAborted(signal);
              // Longer than the TTL: only the extensions that go on after a revoke keep it held.
              await sleep(REVOKED_WORK_MS);
              stillHeldAtEnd = await holding(resource, value);
            },
          );
          const aborted = abortedAt(signal);
          const response = await call<RevokeResponse & ErrorBody>(
            revoke.POST,
            "/api/locks/revoke",
            { body: { resource, expectedValue: value, reason: "deploy", deadlineMs: 10_000 } },
          );
          const answeredAt = performance.now();
          expect(response.status).toBe(202);
          expect(response.body.sessionId).toBe(holder.session!.id);
          expect((await aborted) - answeredAt).toBeLessThanOrEqual(ABORT_GUARD_MS);
          expect(signal.error).toBeInstanceOf(LockRevokedError);
          expect(signal.error).toMatchObject({
            resource,
            auditId: response.body.auditId,
            reason: "deploy",
            deadlineAt: response.body.deadlineAt,
          });
          await running;
          expect(stillHeldAtEnd).toBeGreaterThanOrEqual(quorum());
          expect(await holding(resource, value)).toBe(0);
          // The library recorded its release in the marker: the console's evidence.
          const markers = (
            await Promise.all(readers().map((reader) => reader.get(revokeKey(resource))))
          ).map((text) => (text === null ? undefined : decodeRevokeMarker(text)));
          expect(
            markers.filter((marker) => marker?.releasedAt !== undefined).length,
          ).toBeGreaterThanOrEqual(quorum());
          const followUp = await vi.waitFor(
            async () => {
              const entries = await call<AuditResponse>(audit.GET, "/api/audit?limit=200");
              const entry = entries.body.entries.find((each) =>
                each.detail.startsWith(`follow-up of ${response.body.auditId}:`),
              );
              expect(entry).toBeDefined();
              return entry!;
            },
            { timeout: 20_000, interval: 100 },
          );
          expect(followUp).toMatchObject({ action: "revoke", outcome: "success" });
          const [, afterMs] = /released by the holder after (\d+) ms$/.exec(followUp.detail) ?? [];
          expect(Number(afterMs)).toBeGreaterThanOrEqual(REVOKED_WORK_MS);
          // Before the revoke's 10 s deadline (the routine's work plus a release: not a bound on
          // how fast, which would fail on a slow machine only).
          expect(Number(afterMs)).toBeLessThan(10_000);
        });

        it("release everything of a session: preview, then all three using() locks tombstoned, their signals abort, the acks free them", async () => {
          const holder = await instance(kind);
          const resources = [1, 2, 3].map((n) => resourceNamed(`session-lock-${n}`));
          const held = [];
          for (const resource of resources)
            held.push(await hold(holder, resource, SHORT_TTL_MS, untilAborted));
          const sessionId = holder.session!.id;
          await tc.sync();
          // Issue 39: an alive session is asked first; forcing at once is the explicit `force`.
          const releaseOf = (preview: boolean) =>
            call<HolderSessionReleaseResponse & ErrorBody>(
              releaseSession.POST,
              `/api/sessions/${sessionId}/release`,
              { body: { reason: "wedged worker", preview, force: true } },
            );
          const preview = await releaseOf(true);
          expect(preview.status).toBe(200);
          expect(preview.body).toMatchObject({
            preview: true,
            auditId: null,
            holderState: NOT_GONE,
          });
          expect(preview.body.locks.map((lock) => [lock.resource, lock.mode]).sort()).toEqual(
            resources.map((resource) => [resource, "tombstoned"]).sort(),
          );
          expect(held.every(({ signal }) => !signal.aborted)).toBe(true);
          const released = await releaseOf(false);
          expect(released.status).toBe(200);
          expect(released.body).toMatchObject({ preview: false, holderState: NOT_GONE });
          expect(released.body.locks).toHaveLength(3);
          for (const lock of released.body.locks)
            expect(lock).toMatchObject({
              outcome: "released",
              mode: "tombstoned",
              tombstonedCount: readers().length,
            });
          await Promise.all(held.map(({ running }) => running));
          for (const { signal } of held) {
            expect(signal.error).toBeInstanceOf(LockForceReleasedError);
            expect(signal.error).toMatchObject({ auditId: released.body.auditId });
          }
          // The acks (the holder's releases after each routine settled) free them at once.
          await vi.waitFor(
            async () => {
              for (const resource of resources)
                expect(await values(resource)).toEqual(readers().map(() => null));
            },
            { timeout: 1_000, interval: 20 },
          );
        });
      });

    it("revoke of a lock taken by node-redlock (no session) answers 409 no_session", async () => {
      const resource = resourceNamed("node-redlock");
      const clients = (await nodes().clients("ioredis")) as ConstructorParameters<
        typeof NodeRedlock
      >[0];
      const nodeRedlock = new NodeRedlock(clients, { retryCount: 0 });
      const lock = await nodeRedlock.acquire([resource], 10_000);
      try {
        const response = await call<ErrorBody>(revoke.POST, "/api/locks/revoke", {
          body: { resource, expectedValue: lock.value, reason: "ask it" },
        });
        expect(response.status).toBe(409);
        expect(response.body.error.code).toBe("no_session");
        expect(await holding(resource, lock.value)).toBeGreaterThanOrEqual(quorum());
      } finally {
        await nodeRedlock.release(lock);
      }
    });
  });
