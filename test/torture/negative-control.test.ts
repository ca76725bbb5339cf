/**
 * The negative control: a deterministic scenario the checker must flag, proving it can fail.
 * A locks nodes 1-3 only (nodes 4-5 hold a stray key); node 3 restarts empty; B then locks 3-5.
 * Without quarantine both hold the lock at once and the checker reports the overlap; with
 * quarantine (>= TTL) B's acquire is refused with an error naming node 3.
 */
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import Redlock, { ExecutionError, NodeQuarantinedError, type Lock } from "@redlock-console/redlock";
import { connect, disconnect, usePrivateMasters } from "../masters";
import { checkHistory } from "./checker";
import type { HeldEvent } from "./events";
import { blockOn, quiet, unblock, waitAllVoting, waitNodeStatus } from "./support";

const { masters } = usePrivateMasters();
const ttlMs = 2_000;
const restarted = 2; // node 3, counting from 1
let opened: Redis[][] = [];

afterEach(async () => {
  await Promise.all(opened.map(disconnect));
  opened = [];
});

/** Two clients as separate processes would have: their own connections, the same settings. */
async function twoClients(restartQuarantine: number | false) {
  const a = quiet(connect(masters().urls));
  const b = quiet(connect(masters().urls));
  opened.push(a, b);
  const settings = { restartQuarantine, fencing: true, retryCount: 0, nodeTimeout: 200 };
  const redlockA = new Redlock(a, settings);
  const redlockB = new Redlock(b, settings);
  await Promise.all([waitAllVoting(redlockA), waitAllVoting(redlockB)]);
  return { a, redlockA, b, redlockB };
}

/** A holds nodes 1-3 only, then node 3 loses everything. */
async function aHoldsThenNodeRestarts(
  clients: Redis[],
  redlock: Redlock,
  resource: string,
): Promise<HeldEvent> {
  await blockOn(clients, [3, 4], resource);
  const lock = await redlock.acquire([resource], ttlMs);
  const acquiredAt = Date.now();
  await lock.attempts[0];
  expect(await Promise.all(clients.map((client) => client.get(resource)))).toEqual([
    lock.value,
    lock.value,
    lock.value,
    "f".repeat(40),
    "f".repeat(40),
  ]);
  await unblock(clients, [3, 4], resource);
  await masters().restartEmpty(restarted);
  return held(0, lock, acquiredAt);
}

const held = (workerId: number, lock: Lock, acquiredAt: number): HeldEvent => ({
  type: "held",
  workerId,
  value: lock.value,
  resources: lock.resources,
  token: lock.fencingToken,
  ttlMs,
  acquiredAt,
  expiration: lock.expiration,
});

describe("negative control: A on nodes 1-3, node 3 restarts empty, B tries nodes 3-5", () => {
  it("without quarantine, B also acquires and the checker reports the overlap", async () => {
    const { a, redlockA, b, redlockB } = await twoClients(false);
    const resource = "control:no-quarantine";
    const heldA = await aHoldsThenNodeRestarts(a, redlockA, resource);
    await waitNodeStatus(redlockB, b[restarted]!, restarted, "ok");
    const lockB = await redlockB.acquire([resource], ttlMs);
    const heldB = held(1, lockB, Date.now());
    expect(heldB.acquiredAt).toBeLessThan(heldA.expiration); // A still believes it holds the lock

    const report = checkHistory({ held: [heldA, heldB], extended: [], releases: [], writes: [] });
    expect(report.violations.map((violation) => violation.kind)).toContain("overlap");
    expect(report.violations[0]!.message).toContain(`${lockB.value.slice(0, 8)} (worker 1`);
  });

  it("with quarantine, B's acquire is refused with an ExecutionError naming node 3 and until when", async () => {
    const { a, redlockA, b, redlockB } = await twoClients(ttlMs);
    const resource = "control:quarantine";
    const heldA = await aHoldsThenNodeRestarts(a, redlockA, resource);
    await waitNodeStatus(redlockB, b[restarted]!, restarted, "quarantined");
    const until = redlockB.nodeStates()[restarted]!.quarantinedUntil!;

    const error = await redlockB.acquire([resource], ttlMs).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExecutionError);
    const address = `127.0.0.1:${masters().masters[restarted]!.port}`;
    // The message is node-redlock's; which node is quarantined, and until when, are fields.
    expect((error as ExecutionError).message).toBe(
      "The operation was unable to achieve a quorum during its retry window.",
    );
    const [named] = (error as ExecutionError).quarantined;
    expect(named?.address).toBe(address);
    // quarantinedUntil is the monotonic deadline read on the wall clock: equal within a few ms.
    expect(Math.abs(named!.quarantinedUntil - until)).toBeLessThanOrEqual(5);
    const votes = (await (error as ExecutionError).attempts[0]!).nodes;
    expect(votes[restarted]!.error).toBeInstanceOf(NodeQuarantinedError);
    expect(votes.filter((vote) => vote.vote === "for").map((vote) => vote.index)).toEqual([3, 4]);
    expect(Date.now()).toBeLessThan(heldA.expiration); // refused while A still holds the lock
    expect(await a[0]!.get(resource)).toBe(heldA.value);
  });
});
