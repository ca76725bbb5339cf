/**
 * Issue 49's refuted list, kept so: the library's semaphores and read-write locks under an
 * operator's force-release through the console and a master restarted empty. A permit (or the
 * writer) force-released is a tombstone, so it stays held until its holder lets go: no third
 * permit holder, no reader beside the writer, even once a master comes back empty (the restart
 * quarantine withholds its vote). Five private masters, a real console, real library holders.
 */
// test-group: timed
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as forceRelease from "@/app/api/locks/force-release/route";
import type { ForceReleaseResponse } from "@/lib/api";
import Redlock, {
  ExecutionError,
  LockForceReleasedError,
  type RedlockAbortSignal,
} from "@redlock-console/redlock";
import { connect, disconnect, usePrivateMasters } from "../masters";
import { untilSubscribedEverywhere } from "../redlock/fixtures/console-marks";
import { quiet, waitAllVoting, waitRestartSeen } from "../torture/support";
import { call, startTestConsole, type TestConsole } from "./helpers";

const { masters } = usePrivateMasters(5);
/** Long enough that nothing expires during the test: only a release frees a slot. */
const TTL_MS = 30_000;
/** Short, so fresh masters vote soon; one master restarted empty is outvoted by the four others anyway. */
const QUARANTINE_MS = 2_000;
/** In every key of this file: LOCK_MATCH covers the members `{<marker>:x}#0` and `{<marker>:x}#w`. */
const marker = `refuted-${randomBytes(4).toString("hex")}`;
let admins: Redis[];
let tc: TestConsole;
let opened: Redlock[] = [];

beforeAll(() => {
  admins = connect(masters().urls);
  tc = startTestConsole(masters().urls, { lockMatch: [`*${marker}*`] });
});
afterEach(async () => {
  await Promise.all(opened.map((redlock) => redlock.quit().catch(() => undefined)));
  opened = [];
});
afterAll(async () => {
  await tc.close();
  await disconnect(admins);
});

/** A library instance on the five masters, once every node votes (restart checks done). */
const redlockOf = async () => {
  const redlock = new Redlock(quiet(connect(masters().urls)), {
    retryCount: 0,
    restartQuarantine: QUARANTINE_MS,
  });
  opened.push(redlock);
  await waitAllVoting(redlock, 20_000);
  return redlock;
};

/** A routine that holds until `letGo()`, and the signal it was given. */
function holding(start: (routine: (signal: RedlockAbortSignal) => Promise<void>) => Promise<void>) {
  let signal: RedlockAbortSignal | undefined;
  let letGo = () => {};
  const done = start(
    (given) =>
      new Promise<void>((resolve) => {
        signal = given;
        letGo = resolve;
      }),
  );
  return { done, signal: () => signal, letGo: () => letGo() };
}

async function forceReleaseThroughConsole(key: string): Promise<void> {
  const expectedValue = (await admins[0]!.get(key))!;
  expect(expectedValue).toBeTruthy();
  const answer = await call<ForceReleaseResponse>(forceRelease.POST, "/api/locks/force-release", {
    body: { resource: key, expectedValue, reason: "refuted list" },
  });
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ mode: "tombstoned", tombstonedCount: 5 });
}

/** Restarts master 0 empty (`key`'s tombstone gone there), until `redlock` has seen the new process. */
async function restartOneEmpty(redlock: Redlock, key: string): Promise<void> {
  const before = redlock.nodeStates()[0]!.runId;
  await masters().restartEmpty(0);
  await waitRestartSeen(redlock, 0, before);
  expect(await admins[0]!.exists(key)).toBe(0);
}

describe("a semaphore of 2 under an operator's force-release and an empty restart", () => {
  it("admits no third holder while the force-released holder still runs, and one once it lets go", async () => {
    const name = `${marker}:sem`;
    const holder = await redlockOf();
    const semaphore = holder.semaphore(name, 2);
    const first = holding((routine) => semaphore.using(TTL_MS, routine));
    const second = holding((routine) => semaphore.using(TTL_MS, routine));
    await vi.waitFor(() => expect(first.signal() && second.signal()).toBeTruthy(), {
      timeout: 20_000,
    });
    await untilSubscribedEverywhere(
      admins.map((admin) => [admin]),
      holder.session!.id,
    );

    // Permit keys are `{name}#<index>` (lib/redlock/semaphore.ts).
    const permit = `{${name}}#0`;
    await forceReleaseThroughConsole(permit);
    await vi.waitFor(
      () => expect([first, second].filter((hold) => hold.signal()!.aborted)).toHaveLength(1),
      { timeout: 20_000 },
    );
    const [aborted, running] = first.signal()!.aborted ? [first, second] : [second, first];
    expect(aborted.signal()!.error).toBeInstanceOf(LockForceReleasedError);

    const contender = await redlockOf();
    const third = () => contender.semaphore(name, 2).acquire(TTL_MS);
    await expect(third()).rejects.toBeInstanceOf(ExecutionError);
    await restartOneEmpty(contender, permit);
    await expect(third()).rejects.toBeInstanceOf(ExecutionError);

    aborted.letGo();
    await aborted.done.catch(() => undefined);
    const admitted = await vi.waitFor(() => third(), { timeout: 20_000, interval: 200 });
    expect(running.signal()!.aborted).toBe(false);
    await expect(third()).rejects.toBeInstanceOf(ExecutionError);
    await admitted.release();
    running.letGo();
    await running.done;
  }, 90_000);
});

describe("a read-write lock under an operator's force-release of its writer and an empty restart", () => {
  it("admits no reader while the force-released writer still runs, and readers once it lets go", async () => {
    const name = `${marker}:rw`;
    const holder = await redlockOf();
    const writer = holding((routine) => holder.readWriteLock(name).usingWrite(TTL_MS, routine));
    await vi.waitFor(() => expect(writer.signal()).toBeTruthy(), { timeout: 20_000 });
    await untilSubscribedEverywhere(
      admins.map((admin) => [admin]),
      holder.session!.id,
    );

    // The writer's key is `{name}#w` (lib/redlock/read-write-lock.ts).
    const writerKey = `{${name}}#w`;
    await forceReleaseThroughConsole(writerKey);
    await vi.waitFor(() => expect(writer.signal()!.aborted).toBe(true), { timeout: 20_000 });
    expect(writer.signal()!.error).toBeInstanceOf(LockForceReleasedError);

    const contender = await redlockOf();
    const reader = () => contender.readWriteLock(name).read(TTL_MS);
    await expect(reader()).rejects.toBeInstanceOf(ExecutionError);
    await restartOneEmpty(contender, writerKey);
    await expect(reader()).rejects.toBeInstanceOf(ExecutionError);

    writer.letGo();
    await writer.done.catch(() => undefined);
    const admitted = await vi.waitFor(() => reader(), { timeout: 20_000, interval: 200 });
    await admitted.release();
  }, 90_000);
});
