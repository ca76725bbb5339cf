// test-group: timed
/**
 * Issue 39, "the holder hears, on every path", on real masters for the project's client kind
 * (ioredis or node-redis): every routine of a session release hears its own notice; the marks are
 * read until a majority decided, never waiting out a down or hung master; a lock whose value is gone
 * from a majority is lost on a notice even without a tombstone; a lock handed over from another
 * process learns at its extension that it was force-released; a revoke cancels the waits begun
 * inside the revoked routine and no other wait of the process. The test plays the console as
 * safe-unlock.test.ts does (fixtures/console-marks.ts: the tombstone's compare-and-set, the notice
 * PUBLISHed on every node it can reach).
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import Redlock, {
  Lock,
  LockForceReleasedError,
  LockRevokedError,
  type Client,
  type RedlockAbortSignal,
  type Settings,
} from "@redlock-console/redlock";
import { clientKind } from "../lock-clients";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import {
  act,
  publishNotice,
  untilSubscribedEverywhere,
  writeRevokeMarker,
  writeTombstone,
} from "./fixtures/console-marks";
import { extensionsUntilAborted } from "./fixtures/extensions";
import { useLockNodes, type Topology } from "./fixtures/lock-nodes";
import { clientFor } from "./fixtures/node-clients";

/**
 * Long enough that no extension comes during a test: only the notice can tell the routine, and a
 * routine aborted before any extension started was told by the notice, at any speed.
 */
const TTL_MS = 10_000;
const EXTEND_BELOW_MS = 500;

/** performance.now() at which `signal` aborts. */
const abortedAt = (signal: AbortSignal) =>
  new Promise<number>((resolve) =>
    signal.addEventListener("abort", () => resolve(performance.now()), { once: true }),
  );

const untilAborted = (signal: AbortSignal) =>
  new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));

/**
 * Starts a using() routine that runs until its signal aborts or `finish()` is called; resolves once
 * it holds the lock.
 */
async function holdUntilAborted(redlock: Redlock, resource: string) {
  let holding: (signal: RedlockAbortSignal) => void = () => undefined;
  const held = new Promise<RedlockAbortSignal>((resolve) => (holding = resolve));
  let finish = () => undefined as void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const running = redlock.using([resource], TTL_MS, async (signal) => {
    holding(signal);
    await Promise.race([untilAborted(signal), finished]);
  });
  // An acquire that fails rejects here rather than leaving the test waiting for a routine.
  const signal = await Promise.race([held, running.then(() => held)]);
  return { running, signal, finish };
}

/** Closes a library client at once (node-redis throws when it is closed already). */
function close(client: Client): void {
  try {
    if ("evalsha" in client) client.disconnect();
    else if ("destroy" in client && typeof client.destroy === "function") client.destroy();
  } catch {
    // Closed already.
  }
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

    async function instance(settings: Partial<Settings> = {}): Promise<Redlock> {
      const redlock = new Redlock(await nodes().clients(), {
        retryCount: 3, // a loaded machine may miss a nodeTimeout
        automaticExtensionThreshold: EXTEND_BELOW_MS,
        ...settings,
      });
      instances.push(redlock);
      return redlock;
    }

    const readers = () => nodes().readers;
    const quorum = () => Math.floor(readers().length / 2) + 1;
    const valueOf = async (resource: string) => (await readers()[0]!.get(resource))!;
    const subscribed = (redlock: Redlock) =>
      untilSubscribedEverywhere(nodes().servers, redlock.session!.id);

    it("a session release of 6 locks (one audit id, one notice per lock) aborts every routine on its notice, before any extension", async () => {
      const holder = await instance();
      const resources = Array.from(
        { length: 6 },
        (_, index) => `hear-six:${index}:${randomUUID()}`,
      );
      const held = await Promise.all(
        resources.map((resource) => holdUntilAborted(holder, resource)),
      );
      await subscribed(holder);
      const action = act("release everything of this session");
      for (const resource of resources)
        expect(await writeTombstone(readers(), resource, await valueOf(resource), action)).toEqual(
          readers().map(() => "replaced"),
        );
      const extensions = held.map(({ signal }) => extensionsUntilAborted(holder, signal));
      for (const resource of resources)
        await publishNotice(
          readers(),
          holder.session!.id,
          "force-release",
          resource,
          action.auditId,
        );
      expect(await Promise.all(extensions)).toEqual(resources.map(() => 0));
      held.forEach(({ signal }, index) => {
        expect(signal.error).toBeInstanceOf(LockForceReleasedError);
        expect(signal.error).toMatchObject({ resource: resources[index], ...action });
      });
      await Promise.all(held.map(({ running }) => running));
    });

    it("a notice for a lock whose value is gone from a majority of nodes, with no tombstone, aborts its routine before any extension", async () => {
      const resource = `hear-gone:${randomUUID()}`;
      const holder = await instance();
      const { running, signal } = await holdUntilAborted(holder, resource);
      await subscribed(holder);
      await Promise.all(
        readers()
          .slice(0, quorum())
          .map((reader) => reader.del(resource)),
      );
      const auditId = randomUUID();
      const extensions = extensionsUntilAborted(holder, signal);
      await publishNotice(readers(), holder.session!.id, "force-release", resource, auditId);
      expect(await extensions).toBe(0);
      expect(signal.error).toBeInstanceOf(LockForceReleasedError);
      expect(signal.error).toMatchObject({ resource, auditId, by: "" });
      await running;
    });

    it("a forged notice for a lock still held on a majority (gone from the others) aborts nobody", async () => {
      const resource = `hear-forged:${randomUUID()}`;
      const holder = await instance();
      const { running, signal, finish } = await holdUntilAborted(holder, resource);
      await subscribed(holder);
      const value = await valueOf(resource);
      await Promise.all(
        readers()
          .slice(0, quorum() - 1)
          .map((reader) => reader.del(resource)),
      );
      await publishNotice(readers(), holder.session!.id, "force-release", resource, randomUUID());
      await sleep(500);
      expect(signal.aborted).toBe(false);
      const held = (await Promise.all(readers().map((reader) => reader.get(resource)))).filter(
        (found) => found === value,
      );
      expect(held).toHaveLength(readers().length - quorum() + 1);
      finish();
      await running;
    });

    it("a lock handed over from another process (new Lock, lockByValue) learns at its extension that it was force-released", async () => {
      const resource = `hear-handed:${randomUUID()}`;
      const acquirer = await instance();
      const lock = await acquirer.acquire([resource], TTL_MS);
      // node-redlock's hand-over: the receiving process builds the lock from its value.
      const receiver = await instance();
      const handedOver = [
        new Lock(receiver, [resource], lock.value, [], Date.now() + TTL_MS),
        receiver.lockByValue([resource], lock.value),
      ];
      const action = act("handed-over lock");
      await writeTombstone(readers(), resource, lock.value, action);
      for (const handed of handedOver) {
        const failure = await handed.extend(TTL_MS).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(LockForceReleasedError);
        expect(failure).toMatchObject({ resource, ...action });
      }
    });

    it("a revoke does not cancel a wait of the process begun outside the revoked routine, after its lock was acquired: that wait acquires later", async () => {
      const revoked = `hear-revoke:${randomUUID()}`;
      const unrelated = `hear-unrelated:${randomUUID()}`;
      const other = await instance();
      const otherLock = await other.acquire([unrelated], TTL_MS);
      const holder = await instance();
      const { running, signal } = await holdUntilAborted(holder, revoked);
      await subscribed(holder);
      const waiting = holder
        .acquire([unrelated], TTL_MS, { retryCount: -1, retryDelay: 50, retryJitter: 0 })
        .catch((error: unknown) => error);
      await sleep(150); // it failed and waits, begun outside the routine
      const action = act("revoke beside an unrelated wait");
      const value = await valueOf(revoked);
      await writeRevokeMarker(readers(), revoked, value, action, Date.now() + 5_000);
      await publishNotice(readers(), holder.session!.id, "revoke", revoked, action.auditId);
      await vi.waitFor(() => expect(signal.error).toBeInstanceOf(LockRevokedError));
      await running;
      await sleep(200);
      await otherLock.release();
      const acquired = await waiting;
      expect(acquired).toBeInstanceOf(Lock);
      await (acquired as Lock).release();
    });

    it("a revoke breaks a deadlock: A holds X and waits for Y, B holds Y and waits for X; revoking X cancels A's wait, A lets X go, B acquires X", async () => {
      const x = `hear-deadlock-x:${randomUUID()}`;
      const y = `hear-deadlock-y:${randomUUID()}`;
      const retrying = { retryCount: -1, retryDelay: 50, retryJitter: 0 };
      const a = await instance();
      const b = await instance();
      let aHoldsX = () => undefined as void;
      let bHoldsY = () => undefined as void;
      const aHolds = new Promise<void>((resolve) => (aHoldsX = resolve));
      const bHolds = new Promise<void>((resolve) => (bHoldsY = resolve));
      let aWait: unknown;
      const aRunning = a.using([x], TTL_MS, async () => {
        aHoldsX();
        await bHolds;
        aWait = await a.acquire([y], TTL_MS, retrying).catch((error: unknown) => error);
      });
      await aHolds;
      const bRunning = b.using([y], TTL_MS, async () => {
        bHoldsY();
        const lock = await b.acquire([x], TTL_MS, retrying);
        await lock.release();
      });
      await bHolds;
      await subscribed(a);
      await sleep(150); // both failed once and wait for each other
      const action = act("break the deadlock");
      await writeRevokeMarker(readers(), x, await valueOf(x), action, Date.now() + 5_000);
      await publishNotice(readers(), a.session!.id, "revoke", x, action.auditId);
      await aRunning;
      expect(aWait).toBeInstanceOf(LockRevokedError);
      expect(aWait).toMatchObject({ resource: x, auditId: action.auditId });
      // B acquired X: without the revoke neither routine ever settles (each waits for ever).
      await bRunning;
    });

    it("a wait the revoked routine begins only after the revoke reached it is cancelled as it begins", async () => {
      // The deadlock above, when the routine's first attempt at its second lock fails only after the
      // notice (a loaded machine): that wait is the routine's too, and must not wait for ever.
      const x = `hear-late-wait-x:${randomUUID()}`;
      const y = `hear-late-wait-y:${randomUUID()}`;
      const other = await instance();
      const yLock = await other.acquire([y], TTL_MS);
      const a = await instance();
      let revokedNow = () => undefined as void;
      const revokeReached = new Promise<void>((resolve) => (revokedNow = resolve));
      let lateWait: unknown;
      const running = a.using([x], TTL_MS, async (signal) => {
        signal.addEventListener("abort", () => revokedNow(), { once: true });
        await revokeReached;
        const stillWaiting = sleep(3_000).then(() => "still waiting");
        lateWait = await Promise.race([
          a
            .acquire([y], TTL_MS, { retryCount: -1, retryDelay: 50, retryJitter: 0 })
            .catch((error: unknown) => error),
          stillWaiting,
        ]);
      });
      await subscribed(a);
      const action = act("revoke before the routine's wait");
      await writeRevokeMarker(readers(), x, await valueOf(x), action, Date.now() + 5_000);
      await publishNotice(readers(), a.session!.id, "revoke", x, action.auditId);
      await running;
      expect(lateWait).toBeInstanceOf(LockRevokedError);
      expect(lateWait).toMatchObject({ resource: x, auditId: action.auditId });
      await yLock.release();
    });
  });

describe(`${clientKind()} clients, one master down or hung`, () => {
  // These tests SIGSTOP and SIGKILL real redis-server processes: masters of their own.
  const { masters } = usePrivateMasters(5);
  const NODE_TIMEOUT_MS = 1_500;
  let readers: Redis[];
  beforeAll(() => {
    readers = connect(masters().urls);
    // A master is killed on purpose: its lost connection is no crash of the test.
    for (const reader of readers) reader.on("error", () => undefined);
  });
  afterAll(() => disconnect(readers));

  /** Holds `resource` in a using() routine, force-releases it on the nodes but `faulty`, and
   * returns how long after the notice the routine's signal aborted, and the extensions started
   * meanwhile. */
  async function forceReleaseBeside(fault: (index: number) => Promise<void>, faulty: number) {
    const resource = `hear-fault:${randomUUID()}`;
    // Clients of its own, closed at the end of the test.
    const own = await Promise.all(masters().urls.map((url) => clientFor(clientKind(), { url })));
    for (const client of own) (client as Redis).on("error", () => undefined);
    const holder = new Redlock(own, {
      retryCount: 3,
      nodeTimeout: NODE_TIMEOUT_MS,
      automaticExtensionThreshold: EXTEND_BELOW_MS,
    });
    const { running, signal } = await holdUntilAborted(holder, resource);
    const servers = readers.map((reader) => [reader]);
    await untilSubscribedEverywhere(servers, holder.session!.id);
    const value = (await readers[0]!.get(resource))!;
    await fault(faulty);
    const live = readers.filter((_reader, index) => index !== faulty);
    const action = act("one master faulty");
    expect(await writeTombstone(live, resource, value, action)).toEqual(live.map(() => "replaced"));
    const aborted = abortedAt(signal);
    const extensions = extensionsUntilAborted(holder, signal);
    const publishedAt = performance.now();
    await publishNotice(live, holder.session!.id, "force-release", resource, action.auditId);
    const abortMs = (await aborted) - publishedAt;
    const extensionsBeforeAbort = await extensions;
    expect(signal.error).toBeInstanceOf(LockForceReleasedError);
    expect(signal.error).toMatchObject({ resource, ...action });
    await running;
    // quit() stops the session; not awaited: a node-redis quit() waits for every node's reply.
    const quit = () => {
      void holder.quit().catch(() => undefined);
      own.forEach(close);
    };
    return { abortMs, extensionsBeforeAbort, quit };
  }

  it("with one master hung (SIGSTOP) and nodeTimeout 1500, a force-released routine aborts on the notice, never waiting out the faulty master", async () => {
    try {
      const { abortMs, extensionsBeforeAbort, quit } = await forceReleaseBeside(async (index) => {
        masters().pause(index);
      }, 1);
      quit();
      // Waiting for the faulty master's mark would take its nodeTimeout (15 times the 100 ms the
      // bench's target holds): a slow machine stays below that; a wait for the master does not.
      expect(abortMs).toBeLessThan(NODE_TIMEOUT_MS);
      expect(extensionsBeforeAbort).toBe(0);
    } finally {
      masters().resume(1);
    }
  });

  it("with one master down (SIGKILL) and nodeTimeout 1500, a force-released routine aborts on the notice, never waiting out the faulty master", async () => {
    try {
      const { abortMs, extensionsBeforeAbort, quit } = await forceReleaseBeside(async (index) => {
        process.kill(masters().masters[index]!.pid(), "SIGKILL");
        await sleep(300); // the clients see the connection closed
      }, 2);
      quit();
      // Waiting for the faulty master's mark would take its nodeTimeout (15 times the 100 ms the
      // bench's target holds): a slow machine stays below that; a wait for the master does not.
      expect(abortMs).toBeLessThan(NODE_TIMEOUT_MS);
      expect(extensionsBeforeAbort).toBe(0);
    } finally {
      await masters().restartEmpty(2);
    }
  });
});
