/**
 * Read-write locks on five real masters: readers share, a writer excludes readers and writers, a
 * waiting writer stops new readers (the rule against writer starvation), each reader is a member
 * of its own (a force-release reaches that reader only), and clients must agree on the reader
 * slots.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import Redlock, {
  ExecutionError,
  LockForceReleasedError,
  ShapeMismatchError,
  readerKey,
  writerKey,
  writerWaitingKey,
  type RedlockAbortSignal,
} from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls } from "../masters";
import { lockClients } from "../lock-clients";
import { act, publishNotice, subscribedEverywhere, writeTombstone } from "./fixtures/console-marks";

let clients: Redis[];
let redlock: Redlock;

beforeAll(async () => {
  clients = connect(sharedUrls());
  redlock = new Redlock(await lockClients(clients), { retryCount: 0 });
});
afterAll(async () => {
  await disconnect(clients);
});

const fresh = () => `rw-${randomUUID()}`;
const onMajority = async (key: string) =>
  (await Promise.all(clients.map((client) => client.exists(key)))).reduce((a, b) => a + b, 0) >= 3;

describe("a read-write lock", () => {
  it("lets readers share, each in its own reader slot, and keeps the writer out", async () => {
    const name = fresh();
    const rw = redlock.readWriteLock(name);
    const [first, second] = await Promise.all([rw.read(5_000), rw.read(5_000)]);
    expect(first!.resources[0]).not.toBe(second!.resources[0]);
    expect(first!.resources[0]).toMatch(new RegExp(`^\\{${name}\\}#r\\d+$`));
    await expect(rw.write(5_000)).rejects.toBeInstanceOf(ExecutionError);
    await first!.release();
    await expect(rw.write(5_000)).rejects.toBeInstanceOf(ExecutionError);
    await second!.release();
    const writer = await rw.write(5_000);
    expect(writer.resources).toEqual([writerKey(name)]);
    await writer.release();
  });

  it("keeps readers and other writers out while a writer holds", async () => {
    const name = fresh();
    const rw = redlock.readWriteLock(name);
    const writer = await rw.write(5_000);
    await expect(rw.read(5_000)).rejects.toBeInstanceOf(ExecutionError);
    await expect(rw.write(5_000)).rejects.toBeInstanceOf(ExecutionError);
    await writer.release();
    const reader = await rw.read(5_000);
    await reader.release();
  });

  it("stops new readers while a writer waits, and lets the writer in once the readers leave", async () => {
    const name = fresh();
    const rw = redlock.readWriteLock(name);
    const reader = await rw.read(10_000);
    const waitingWriter = new Redlock(connect(sharedUrls()), { retryCount: -1, retryDelay: 100 });
    try {
      const writing = waitingWriter.readWriteLock(name).write(10_000, {
        signal: AbortSignal.timeout(20_000),
      });
      // The writer's first refused attempt marks the lock "writer waiting" on a majority.
      await vi.waitFor(async () => expect(await onMajority(writerWaitingKey(name))).toBe(true), {
        timeout: 10_000,
        interval: 20,
      });
      await expect(rw.read(10_000)).rejects.toBeInstanceOf(ExecutionError);
      await reader.release();
      const writer = await writing;
      // Granted: the mark is gone with the writer's acquire.
      expect(await onMajority(writerWaitingKey(name))).toBe(false);
      await writer.release();
      const after = await rw.read(5_000);
      await after.release();
    } finally {
      await waitingWriter.quit();
    }
  });

  it("a force-release of one reader aborts that reader only, and its slot stays held until it lets go", async () => {
    const name = fresh();
    // ioredis connections of its own (quit() closes them), whatever the project's client kind.
    const holder = new Redlock(connect(sharedUrls()), {
      retryCount: 0,
      automaticExtensionThreshold: 500,
    });
    try {
      const rw = holder.readWriteLock(name);
      const signals: RedlockAbortSignal[] = [];
      const release: Array<() => void> = [];
      const held = (index: number) =>
        rw.usingRead(2_000, async (signal) => {
          signals[index] = signal;
          await new Promise<void>((resolve) => (release[index] = resolve));
        });
      const running = [held(0), held(1)];
      await vi.waitFor(() => expect(release.length).toBe(2), { timeout: 10_000 });
      await vi.waitFor(
        async () => expect(await subscribedEverywhere([clients], holder.session!.id)).toBe(true),
        { timeout: 10_000 },
      );
      const slots = await Promise.all(
        Array.from({ length: 64 }, async (_, index) => ({
          key: readerKey(name, index),
          value: await clients[0]!.get(readerKey(name, index)),
        })),
      );
      const taken = slots.filter(({ value }) => value !== null);
      expect(taken).toHaveLength(2);
      const victim = taken[0]!;
      const action = act("one reader only");
      expect(await writeTombstone(clients, victim.key, victim.value!, action)).toContain(
        "replaced",
      );
      await publishNotice(clients, holder.session!.id, "force-release", victim.key, action.auditId);
      await vi.waitFor(() => expect(signals.some((signal) => signal.aborted)).toBe(true), {
        timeout: 10_000,
      });
      const aborted = signals.findIndex((signal) => signal.aborted);
      expect(signals[aborted]!.error).toBeInstanceOf(LockForceReleasedError);
      expect(signals[1 - aborted]!.aborted).toBe(false);
      // The tombstone is a held reader slot: no writer yet.
      await expect(redlock.readWriteLock(name).write(5_000)).rejects.toBeInstanceOf(ExecutionError);
      release[aborted]!();
      release[1 - aborted]!();
      await Promise.all(running);
      const writer = await redlock.readWriteLock(name).write(5_000);
      await writer.release();
    } finally {
      await holder.quit();
    }
  });

  it("refuses a client that gives other reader slots, naming both numbers", async () => {
    const name = fresh();
    const reader = await redlock.readWriteLock(name).read(5_000);
    const error: unknown = await redlock
      .readWriteLock(name, { maxReaders: 8 })
      .write(5_000)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ShapeMismatchError);
    expect(error).toMatchObject({ expected: 8, recorded: 64 });
    await reader.release();
  });
});
