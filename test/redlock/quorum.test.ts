/**
 * quorum.ts alone: vote counting and the decision rules, with stand-in nodes whose answers the
 * test controls (no Redis: the real-node behaviour is covered by faults.test.ts and acquire.test.ts).
 */
import { describe, expect, it } from "vitest";
import {
  NodeTimeoutError,
  NodeUnavailableError,
  ResourceLockedError,
} from "@redlock-console/redlock";
import type { RedlockNode } from "../../lib/redlock/node";
import { quorumSize, runAttempt, type AttemptRequest } from "../../lib/redlock/quorum";
import { defineScript } from "../../lib/redlock/script";

/** A node that answers `reply` after `delayMs` (never when null), or throws `error`. */
function standIn(
  index: number,
  behaviour: { reply?: unknown; delayMs?: number | null; error?: Error; unavailable?: Error },
): RedlockNode {
  const node = {
    index,
    address: `stand-in-${index}`,
    client: { id: index },
    overdue: 0,
    restartWatch: { enabled: false, isUnknown: false, quarantineError: () => undefined },
    unavailableReason: () => behaviour.unavailable,
    markOverdue: () => (node.overdue += 1),
    evaluate: () =>
      new Promise((resolve, reject) => {
        if (behaviour.delayMs === null) return;
        setTimeout(
          () => (behaviour.error ? reject(behaviour.error) : resolve(behaviour.reply ?? 1)),
          behaviour.delayMs ?? 0,
        );
      }),
  };
  return node as unknown as RedlockNode;
}

const request = (overrides: Partial<AttemptRequest> = {}): AttemptRequest => ({
  script: defineScript("return 1"),
  keys: ["k"],
  args: [],
  timeoutMs: 200,
  judge: (reply) =>
    reply === 1
      ? { vote: "for", reply }
      : { vote: "against", reply, error: new ResourceLockedError("held") },
  decideEarly: true,
  decideOnMajorityAnswered: false,
  gateRestarts: false,
  ...overrides,
});

describe("quorumSize", () => {
  it("is a strict majority: floor(N/2) + 1", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(quorumSize)).toEqual([1, 2, 2, 3, 3, 4, 4]);
  });
});

/**
 * Whether `stats` (every node's vote, settled only once the hung nodes timed out) had settled: an
 * attempt decided while they were pending did not wait for them, at any speed.
 */
async function settledYet(stats: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void stats.then(() => (settled = true));
  await Promise.resolve(); // a settled promise's callback runs first
  return settled;
}

/** The hung nodes' timeout: the attempts below decide long before it. */
const HUNG_TIMEOUT_MS = 2_000;

describe("runAttempt", () => {
  it("decides for as soon as a majority voted for, before a hung node's timeout", async () => {
    const nodes = [0, 1, 2]
      .map((index) => standIn(index, {}))
      .concat([3, 4].map((index) => standIn(index, { delayMs: null })));
    const attempt = await runAttempt(nodes, request({ timeoutMs: HUNG_TIMEOUT_MS }));
    expect(attempt.won).toBe(true);
    expect(await settledYet(attempt.stats)).toBe(false);
    const stats = await attempt.stats;
    expect(stats.votesFor.size).toBe(3);
    expect([...stats.votesAgainst.values()].every((e) => e instanceof NodeTimeoutError)).toBe(true);
    expect((nodes[3] as unknown as { overdue: number }).overdue).toBe(1);
  });

  it("decides against as soon as a majority cannot be reached", async () => {
    const nodes = [0, 1, 2]
      .map((index) => standIn(index, { reply: 0 }))
      .concat([3, 4].map((index) => standIn(index, { delayMs: null })));
    const attempt = await runAttempt(nodes, request({ timeoutMs: HUNG_TIMEOUT_MS }));
    expect(attempt.won).toBe(false);
    expect(await settledYet(attempt.stats)).toBe(false);
  });

  it("counts an unavailable node and an erroring node as votes against, without sending", async () => {
    const unavailable = new NodeUnavailableError("stand-in-0", "overdue");
    const nodes = [
      standIn(0, { unavailable }),
      standIn(1, { error: new Error("ECONNRESET") }),
      standIn(2, {}),
      standIn(3, {}),
      standIn(4, {}),
    ];
    const attempt = await runAttempt(nodes, request({ decideEarly: false }));
    expect(attempt.won).toBe(true);
    expect(attempt.sent[0]).toBeUndefined();
    const stats = await attempt.stats;
    expect(stats.nodes.map((vote) => vote.vote)).toEqual([
      "against",
      "against",
      "for",
      "for",
      "for",
    ]);
    expect(stats.nodes[0]!.error).toBe(unavailable);
    expect(stats.nodes[1]!.error?.message).toBe("ECONNRESET");
  });

  it("without decideEarly, waits for every node (bounded by the timeout)", async () => {
    const nodes = [0, 1, 2, 3]
      .map((index) => standIn(index, {}))
      .concat([standIn(4, { delayMs: 120 })]);
    const attempt = await runAttempt(nodes, request({ decideEarly: false }));
    expect(attempt.elapsedMs).toBeGreaterThanOrEqual(100);
    expect(attempt.answers.every((answer) => answer !== undefined)).toBe(true);
  });
});
