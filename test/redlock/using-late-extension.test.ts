// test-group: timed
/**
 * `using` must stop extending once its routine has settled, even when an extension was already in
 * flight at that moment: otherwise the timer it re-arms keeps extending (or trying to) a lock
 * nobody uses any more. Private masters: the test pauses every node's clients.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Redlock, {
  isLockExpiredError,
  type Client,
  type OperationEvent,
} from "@redlock-console/redlock";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { lockClients } from "../lock-clients";

const cluster = usePrivateMasters(3);
let clients: Redis[];
let lockers: Client[];
let admins: Redis[];

beforeAll(async () => {
  clients = connect(cluster.masters().urls);
  lockers = await lockClients(clients);
  admins = connect(cluster.masters().urls);
});
afterAll(async () => {
  await disconnect(clients);
  await disconnect(admins);
});

describe("using, when the routine ends during an extension", () => {
  it("does not re-arm the extension timer after the routine settled", async () => {
    // nodeTimeout above the pause, so the held extension lands instead of timing out.
    const redlock = new Redlock(lockers, {
      retryCount: 0,
      automaticExtensionThreshold: 1_700,
      nodeTimeout: 5_000,
    });
    const extensions: OperationEvent[] = [];
    let extensionLanded: () => void = () => undefined;
    const landed = new Promise<void>((resolve) => (extensionLanded = resolve));
    redlock.on("operation", (event: OperationEvent) => {
      if (event.operation !== "extend") return;
      extensions.push(event);
      extensionLanded();
    });
    // Driven by events, not by guessing when the timer fires: the routine returns the moment
    // `using` starts its extension, which every node then holds (paused) until ~1 s.
    let extensionStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (extensionStarted = resolve));
    const extend = redlock.extend.bind(redlock);
    redlock.extend = (...args: Parameters<Redlock["extend"]>) => {
      extensionStarted();
      return extend(...args);
    };
    const resource = `test:using-late:${randomUUID()}`;
    // TTL 2 s, threshold 1.7 s: the extension goes out ~0.3 s after the acquire, into the pause,
    // and lands ~1 s before the TTL would end.
    await redlock.using([resource], 2_000, async () => {
      await Promise.all(admins.map((admin) => admin.call("CLIENT", "PAUSE", "1000", "ALL")));
      await started;
    });
    await landed;
    // A re-armed timer would fire at once: the landed extension leaves less than the threshold.
    await sleep(800);
    expect(extensions.map((event) => event.outcome)).toEqual(["success"]);
    for (const client of clients) expect(await client.exists(resource)).toBe(0);
  });

  it("aborts the routine's signal when the validity ends, while an extension still retries", async () => {
    // Every extension attempt meets paused writes and times out; the pause between attempts (1 s)
    // runs past the validity, so a signal that waited for the extension to give up would abort
    // ~0.6 s after the validity ended, while a console's tombstone outlives it only by the drift.
    const redlock = new Redlock(lockers, {
      retryCount: 5,
      retryDelay: 1_000,
      retryJitter: 0,
      automaticExtensionThreshold: 500,
      nodeTimeout: 100,
    });
    const resource = `test:using-validity:${randomUUID()}`;
    const ttlMs = 2_000;
    // What happened first: the signal's abort, or the extension's giving up. An order, true at any
    // speed; how soon after the validity's end the abort comes is the bench's target
    // (bench/targets/library.ts).
    const events: string[] = [];
    let extensionSettled: Promise<unknown> = Promise.resolve();
    const extend = redlock.extend.bind(redlock);
    redlock.extend = (...args: Parameters<Redlock["extend"]>) => {
      const extension = extend(...args);
      const settledNow = () => events.push("extension settled");
      extensionSettled = extension.then(settledNow, settledNow);
      return extension;
    };
    let abortError: unknown;
    try {
      await redlock.using([resource], ttlMs, async (signal) => {
        await Promise.all(admins.map((admin) => admin.call("CLIENT", "PAUSE", "4000", "WRITE")));
        await new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => resolve(), { once: true }),
        );
        events.push("aborted");
        abortError = signal.error;
      });
    } finally {
      await Promise.all(admins.map((admin) => admin.call("CLIENT", "UNPAUSE")));
    }
    await extensionSettled;
    expect(isLockExpiredError(abortError)).toBe(true);
    // The validity's timer aborted the signal while the extension still retried (it settles
    // either way once the pause ends: the pause holds the key's expiry too).
    expect(events[0]).toBe("aborted");
    expect(events).toHaveLength(2);
  });
});
