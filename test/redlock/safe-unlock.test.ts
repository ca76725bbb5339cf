// test-group: timed
/**
 * Safe on-call unlock (docs/holder-sessions.md), on real masters and on real clusters, for the
 * project's client kind (ioredis or node-redis): the test plays the console, writing the tombstone
 * or the revoke marker with its compare-and-set and PUBLISHing the notice. A force-released
 * `using()` routine hears it at once and nobody gets the lock before the routine settled; a holder
 * that ignores its signal keeps nobody out past its validity; a forged notice aborts nobody; a lost
 * notice is caught by the next extension; a revoked holder keeps its lock until its routine settles,
 * then releases it and says so in the marker.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import NodeRedlock from "redlock";
import { afterEach, describe, expect, it, vi } from "vitest";
import Redlock, {
  quorumSize,
  decodeRevokeMarker,
  decodeValue,
  LockForceReleasedError,
  LockRevokedError,
  revokeKey,
  type LockLostEvent,
  type LockRevokedEvent,
  type RedlockAbortSignal,
  type Settings,
} from "@redlock-console/redlock";
import { clientKind } from "../lock-clients";
import { sleep } from "../masters";
import {
  act,
  publishNotice,
  untilSubscribedEverywhere,
  writeRevokeMarker,
  writeTombstone,
} from "./fixtures/console-marks";
import { countExtensions, extensionsUntilAborted } from "./fixtures/extensions";
import { useLockNodes, type Topology } from "./fixtures/lock-nodes";

const TTL_MS = 1_000;
/** Extends every ~500 ms: a lost notice is caught within one such period. */
const EXTEND_BELOW_MS = 500;

/** A deferred the routine resolves once it runs (the lock is held). */
function signalled(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => undefined as void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

for (const topology of ["single", "cluster"] as const satisfies readonly Topology[])
  describe(`${clientKind()} clients, ${topology} lock nodes`, () => {
    const nodes = useLockNodes(topology);
    const instances: Redlock[] = [];
    afterEach(async () => {
      await Promise.all(
        instances.splice(0).map((redlock) => redlock.quit().catch(() => undefined)),
      );
    });

    /** A Redlock on clients of its own, as another process would have. */
    async function instance(settings: Partial<Settings> = {}): Promise<Redlock> {
      const redlock = new Redlock(await nodes().clients(), {
        retryCount: 0,
        automaticExtensionThreshold: EXTEND_BELOW_MS,
        ...settings,
      });
      instances.push(redlock);
      return redlock;
    }

    /** A contender retrying every 10 ms: resolves with the moment it acquired. */
    async function contend(resource: string): Promise<{ acquiredAt: number; value: string }> {
      const contender = await instance({ retryCount: -1, retryDelay: 10, retryJitter: 0 });
      const lock = await contender.acquire([resource], 10_000, {
        signal: AbortSignal.timeout(15_000),
      });
      return { acquiredAt: performance.now(), value: lock.value };
    }

    const readers = () => nodes().readers;
    const values = (key: string) => Promise.all(readers().map((reader) => reader.get(key)));
    /** How many lock nodes hold `value` at `resource`. */
    const holding = async (resource: string, value: string) =>
      (await values(resource)).filter((found) => found === value).length;
    const quorum = () => Math.floor(readers().length / 2) + 1;

    /** Runs a using() routine that reports its signal; resolves once it holds the lock. */
    async function holdWithUsing(
      redlock: Redlock,
      resource: string,
      routine: (signal: RedlockAbortSignal) => Promise<void>,
      ttlMs = TTL_MS,
    ) {
      const held = signalled();
      let signal: RedlockAbortSignal | undefined;
      const running = redlock.using([resource], ttlMs, async (routineSignal) => {
        signal = routineSignal;
        held.resolve();
        await routine(routineSignal);
      });
      await held.promise;
      await untilSubscribedEverywhere(nodes().servers, redlock.session!.id);
      const value = (await values(resource)).find((found) => found !== null)!;
      return { running, signal: signal!, value };
    }

    it("a force-released using() routine's signal aborts on the notice, before any extension, and a contender retrying every 10 ms acquires only after the routine settled", async () => {
      const resource = `safe-unlock:${randomUUID()}`;
      const holder = await instance();
      let settledAt = 0;
      // The tombstone lasts the value's PTTL: it must outlast the abort and the 300 ms wind-down,
      // else the contender rightly gets the lock at its end. With TTL_MS (1 s, extended below
      // 500 ms) a loaded machine left less than that; a 5 s TTL leaves seconds, and its first
      // extension (4.5 s on) is far enough that one started before the abort means a missed notice.
      const { running, signal, value } = await holdWithUsing(
        holder,
        resource,
        async (signal) => {
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          await sleep(300); // the routine winds down
          settledAt = performance.now();
        },
        5_000,
      );
      const action = act("stuck report job");
      expect(await writeTombstone(readers(), resource, value, action)).toEqual(
        readers().map(() => "replaced"),
      );
      const contender = contend(resource);
      const extensions = extensionsUntilAborted(holder, signal);
      await publishNotice(readers(), holder.session!.id, "force-release", resource, action.auditId);
      expect(await extensions).toBe(0);
      expect(signal.error).toBeInstanceOf(LockForceReleasedError);
      expect(signal.error).toMatchObject({ resource, ...action, name: "LockForceReleasedError" });
      await running;
      const { acquiredAt } = await contender;
      expect(acquiredAt).toBeGreaterThan(settledAt);
    });

    it("a holder that ignores its signal keeps nobody out past its validity, and gets no extension", async () => {
      const resource = `safe-unlock-ignored:${randomUUID()}`;
      const holder = await instance();
      let settled = false;
      // Ignores its signal: works on until the contender holds the lock (a barrier, not a sleep).
      const contenderHolds = signalled();
      const { running, signal, value } = await holdWithUsing(holder, resource, async () => {
        await contenderHolds.promise;
        settled = true;
      });
      const validityMs = Math.max(
        ...(await Promise.all(readers().map((reader) => reader.pttl(resource)))),
      );
      const action = act("ignored");
      const forcedAt = performance.now();
      await writeTombstone(readers(), resource, value, action);
      const contender = contend(resource);
      await publishNotice(readers(), holder.session!.id, "force-release", resource, action.auditId);
      const { acquiredAt, value: next } = await contender;
      // The tombstone lasts the replaced value's PTTL plus drift (ceil(1% of the TTL) + 2 ms); a
      // holder extended on would keep the contender out for ever (its 15 s signal gives up). The
      // slack is ten times the timer's 150 ms on a loaded machine: only "kept out" exceeds it.
      expect(acquiredAt - forcedAt).toBeLessThanOrEqual(validityMs + 12 + 1_500);
      expect(settled).toBe(false);
      contenderHolds.resolve();
      expect(signal.error).toBeInstanceOf(LockForceReleasedError);
      // Never extended again: the value never came back, and the holder's release at the end
      // leaves the next holder's lock alone (on the majority, at least, that granted it).
      await sleep(50);
      const granted = await holding(resource, next);
      expect(granted).toBeGreaterThanOrEqual(quorum());
      await running;
      expect(await holding(resource, next)).toBe(granted);
      expect(await holding(resource, value)).toBe(0);
    });

    it("a forged PUBLISH, or a tombstone on a minority, aborts nobody", async () => {
      const resource = `safe-unlock-forged:${randomUUID()}`;
      const holder = await instance();
      const done = signalled();
      const { running, signal, value } = await holdWithUsing(holder, resource, () => done.promise);
      const sessionId = holder.session!.id;
      await publishNotice(readers(), sessionId, "force-release", resource, randomUUID());
      await publishNotice(readers(), sessionId, "revoke", resource, randomUUID());
      const minority = readers().slice(0, quorum() - 1);
      const action = act("forged");
      await writeTombstone(minority, resource, value, action);
      await writeRevokeMarker(minority, resource, value, act("forged"), Date.now() + 5_000);
      await publishNotice(readers(), sessionId, "force-release", resource, action.auditId);
      await sleep(2 * TTL_MS); // two extensions went by
      expect(signal.aborted).toBe(false);
      expect(await holding(resource, value)).toBeGreaterThanOrEqual(quorum());
      done.resolve();
      await running;
    });

    it("a dropped notice is caught by the next extension, which aborts with the force-release", async () => {
      const resource = `safe-unlock-dropped:${randomUUID()}`;
      const holder = await instance();
      const { running, signal, value } = await holdWithUsing(holder, resource, async (signal) => {
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      });
      const action = act("notice lost");
      const extensions = extensionsUntilAborted(holder, signal);
      await writeTombstone(readers(), resource, value, action); // and no PUBLISH
      // No notice: an extension found the tombstone.
      expect(await extensions).toBeGreaterThanOrEqual(1);
      expect(signal.error).toBeInstanceOf(LockForceReleasedError);
      expect(signal.error).toMatchObject({ resource, ...action });
      await running;
      // The release acknowledged: the tombstone is gone on every node. release() resolves once a
      // majority answered, so the last nodes' deletes may land just after it.
      await vi.waitFor(async () =>
        expect(await values(resource)).toEqual(readers().map(() => null)),
      );
    });

    it("revoke: the holder's signal aborts, its pending acquires are cancelled, it keeps the lock until the routine settles, then releases it and records releasedAt", async () => {
      const resource = `safe-unlock-revoke:${randomUUID()}`;
      const holder = await instance();
      let settledAtMs = 0;
      // A TTL whose first extension comes seconds after the notice: one started before the abort
      // means the notice was missed (and the extension saw the marker).
      const ttlMs = 3_000;
      const { running, signal, value } = await holdWithUsing(
        holder,
        resource,
        async (signal) => {
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          await sleep(ttlMs + 500); // past the TTL: it is still being extended
          settledAtMs = Date.now();
        },
        ttlMs,
      );
      const pending = holder
        .acquire([resource], TTL_MS, { retryCount: -1, retryDelay: 50, retryJitter: 0 })
        .catch((error: unknown) => error);
      await sleep(100); // it failed once and waits
      const action = act("deploy freeze");
      const deadlineAt = Date.now() + 10_000;
      expect(await writeRevokeMarker(readers(), resource, value, action, deadlineAt)).toBe(
        readers().length,
      );
      const extensions = extensionsUntilAborted(holder, signal);
      await publishNotice(readers(), holder.session!.id, "revoke", resource, action.auditId);
      expect(await extensions).toBe(0);
      expect(signal.error).toBeInstanceOf(LockRevokedError);
      expect(signal.error).toMatchObject({ resource, ...action, deadlineAt });
      const cancelled = await pending;
      expect(cancelled).toBeInstanceOf(LockRevokedError);
      await sleep(ttlMs + 200);
      expect(await holding(resource, value)).toBe(readers().length); // extended past its TTL
      await running;
      // releasedAt lands on the nodes whose marker the holder read at the notice: a majority at
      // least (a read slower than the node timeout leaves a node out); the SETs are not awaited.
      await vi.waitFor(
        async () => {
          expect(await values(resource)).toEqual(readers().map(() => null));
          const markers = await values(revokeKey(resource));
          const recorded = markers.filter(
            (marker) => (decodeRevokeMarker(marker!)?.releasedAt ?? 0) >= settledAtMs,
          );
          expect(recorded.length).toBeGreaterThanOrEqual(quorumSize(markers.length));
        },
        { timeout: 5_000 },
      );
    });

    // Issue 39 changed this rule: a revoke used to cancel every wait the session began after it
    // acquired the revoked lock, so an unrelated wait begun outside the routine was cancelled too.
    // Now it follows the routine's async context: only the waits begun inside the revoked using()
    // routine (and those for the revoked resource itself) are cancelled.
    it("revoke: the wait begun inside the revoked routine (its half of a deadlock) is cancelled; the process's waits begun outside it, before or after the lock was acquired, are not", async () => {
      const revoked = `safe-unlock-cycle-a:${randomUUID()}`;
      const wanted = `safe-unlock-cycle-b:${randomUUID()}`;
      const unrelated = `safe-unlock-cycle-c:${randomUUID()}`;
      const other = await instance();
      await other.acquire([wanted], 10_000);
      await other.acquire([unrelated], 10_000);
      const holder = await instance();
      const stopOutside = new AbortController();
      const retrying = { retryCount: -1, retryDelay: 50, retryJitter: 0 };
      const outsideSettled = [false, false];
      const waitOutside = (index: number) =>
        holder
          .acquire([unrelated], TTL_MS, { ...retrying, signal: stopOutside.signal })
          .catch((error: unknown) => error)
          .finally(() => (outsideSettled[index] = true));
      const before = waitOutside(0);
      await sleep(100); // it failed once and waits, before the lock below is acquired
      let inside: unknown;
      const { running, value } = await holdWithUsing(holder, revoked, async () => {
        // Holds `revoked`, waits for `wanted`.
        inside = await holder.acquire([wanted], TTL_MS, retrying).catch((error: unknown) => error);
      });
      const after = waitOutside(1);
      await sleep(100); // each failed once and waits
      const action = act("break the deadlock");
      await writeRevokeMarker(readers(), revoked, value, action, Date.now() + 10_000);
      await publishNotice(readers(), holder.session!.id, "revoke", revoked, action.auditId);
      await running;
      expect(inside).toBeInstanceOf(LockRevokedError);
      expect(inside).toMatchObject({ resource: revoked, auditId: action.auditId });
      await sleep(200);
      expect(outsideSettled).toEqual([false, false]); // still waiting: begun outside the routine
      stopOutside.abort();
      await Promise.all([before, after]);
    });

    it("revoke: a routine that ignores it past the deadline stops being extended", async () => {
      const resource = `safe-unlock-deadline:${randomUUID()}`;
      const holder = await instance();
      let settled = false;
      // Ignores the revoke: works on until its value is gone from every node (a barrier).
      const valueGone = signalled();
      const { running, signal, value } = await holdWithUsing(holder, resource, async () => {
        await valueGone.promise;
        settled = true;
      });
      const action = act("deadline");
      const deadlineAt = Date.now() + 500;
      await writeRevokeMarker(readers(), resource, value, action, deadlineAt);
      await publishNotice(readers(), holder.session!.id, "revoke", resource, action.auditId);
      await vi.waitFor(() => expect(signal.error).toBeInstanceOf(LockRevokedError));
      // Extended at most once more before the deadline: gone one TTL after it. The wait allows ten
      // TTLs (a slow machine); a holder still extended past the deadline is never gone.
      await vi.waitFor(async () => expect(await holding(resource, value)).toBe(0), {
        timeout: deadlineAt + 10 * TTL_MS - Date.now(),
        interval: 20,
      });
      expect(settled).toBe(false);
      valueGone.resolve();
      await running;
    });

    it("a lock held without using() gets lockLost, and its release acknowledges: the next contender gets it at once", async () => {
      const resource = `safe-unlock-event:${randomUUID()}`;
      const holder = await instance();
      const lost: LockLostEvent[] = [];
      holder.on("lockLost", (event: LockLostEvent) => lost.push(event));
      const lock = await holder.acquire([resource], 10_000);
      await untilSubscribedEverywhere(nodes().servers, holder.session!.id);
      const action = act("held by hand");
      await writeTombstone(readers(), resource, lock.value, action);
      const contender = contend(resource);
      // Held by hand, so no extension could tell it: only the notice does.
      const extensions = countExtensions(holder);
      await publishNotice(readers(), holder.session!.id, "force-release", resource, action.auditId);
      await vi.waitFor(() => expect(lost).toHaveLength(1), { timeout: 20_000, interval: 5 });
      expect(extensions()).toBe(0);
      expect(lost[0]!.lock.value).toBe(lock.value);
      expect(lost[0]!.error).toMatchObject({ resource, ...action });
      await sleep(200);
      const releasedAt = performance.now();
      await lock.release();
      expect((await contender).acquiredAt).toBeGreaterThan(releasedAt);
    });

    it("a lock held without using() gets lockRevoked, and its release is recorded in the marker", async () => {
      const resource = `safe-unlock-revoke-event:${randomUUID()}`;
      const holder = await instance();
      const revoked: LockRevokedEvent[] = [];
      holder.on("lockRevoked", (event: LockRevokedEvent) => revoked.push(event));
      const lock = await holder.acquire([resource], 10_000);
      await untilSubscribedEverywhere(nodes().servers, holder.session!.id);
      const action = act("asked by hand");
      await writeRevokeMarker(readers(), resource, lock.value, action, Date.now() + 5_000);
      await publishNotice(readers(), holder.session!.id, "revoke", resource, action.auditId);
      await vi.waitFor(() => expect(revoked).toHaveLength(1));
      expect(revoked[0]!.error).toMatchObject({ resource, ...action });
      const releasedAtMs = Date.now();
      await lock.release();
      // Recorded on the nodes whose marker the holder read when the notice came (a read slower
      // than its node timeout on a loaded machine leaves that node out): a majority at least, as
      // the revoke itself needed. The SETs are not awaited by release(), hence the wait.
      await vi.waitFor(
        async () => {
          const markers = await values(revokeKey(resource));
          const recorded = markers.filter(
            (marker) => (decodeRevokeMarker(marker!)?.releasedAt ?? 0) >= releasedAtMs,
          );
          expect(recorded.length).toBeGreaterThanOrEqual(quorumSize(markers.length));
        },
        { timeout: 5_000 },
      );
    });

    it.runIf(clientKind() === "ioredis" && topology === "single")(
      "the acknowledgement wakes the next waiter, as a release does",
      async () => {
        const resource = `safe-unlock-wake:${randomUUID()}`;
        const holder = await instance();
        const { running, signal, value } = await holdWithUsing(holder, resource, async (signal) => {
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          await sleep(300);
        });
        const action = act("wake");
        await writeTombstone(readers(), resource, value, action);
        // Retries every 10 s: only the handoff can give it the lock within the test.
        const retryDelayMs = 10_000;
        const waiter = await instance({ retryCount: 3, retryDelay: retryDelayMs, retryJitter: 0 });
        const next = waiter.acquire([resource], 10_000);
        await sleep(300); // listed with its wake channel
        await publishNotice(
          readers(),
          holder.session!.id,
          "force-release",
          resource,
          action.auditId,
        );
        await running;
        const settledAt = performance.now();
        await next;
        // Woken, not its retry: half the retry delay is the widest a slow machine needs.
        expect(performance.now() - settledAt).toBeLessThan(retryDelayMs / 2);
        expect(signal.error).toBeInstanceOf(LockForceReleasedError);
      },
    );

    it("a lock's value carries its session; node-redlock's and a session: false instance's carry none", async () => {
      const resource = `safe-unlock-values:${randomUUID()}`;
      const withSession = await instance();
      const lock = await withSession.acquire([resource], 5_000);
      expect(decodeValue(lock.value)?.session).toBe(withSession.session!.id);
      expect(lock.owner?.session).toBe(withSession.session!.id);
      await lock.release();
      const without = await instance({ session: false });
      expect(without.session).toBeUndefined();
      const plain = await without.acquire([resource], 5_000);
      expect(plain.value).not.toContain('"session"');
      expect(decodeValue(plain.value)?.session).toBeUndefined();
      await plain.release();
      const peer = new NodeRedlock(readers() as never, { retryCount: 0 });
      const peerLock = await peer.acquire([resource], 5_000);
      expect(peerLock.value).not.toContain("session");
      expect(decodeValue(peerLock.value)).toBeUndefined();
      await peer.release(peerLock);
    });
  });
