/**
 * The wait-for graph's rules as tables (pure: graph.ts, paths.ts, episodes.ts, wait-tracker.ts):
 * chain order and choice, cycles whatever member they start at, episodes counted once while a
 * cycle keeps re-forming, and how the tracker dates and names the end of each wait.
 */
import { describe, expect, it } from "vitest";
import { Episodes, EPISODE_GAP_MS } from "@/lib/server/contention/episodes";
import { buildGraph, type WaitedLock } from "@/lib/server/contention/graph";
import { findPaths } from "@/lib/server/contention/paths";
import { WaitTracker, type EndedWait } from "@/lib/server/contention/wait-tracker";
import type { Reads } from "@/lib/server/locks/rows/live-index";
import { StoredState } from "@/lib/server/locks/watch/store/indexed-state";
import { encodeValue } from "@/lib/redlock/value";

const lock = (resource: string, holder: string | null, ...waiters: string[]): WaitedLock => ({
  resource,
  holder: holder === null ? null : { id: holder, labels: {}, value: `v-${holder}` },
  waits: new Map(
    waiters.map((id, n) => [`${resource}#${n}`, { participant: id, labels: {}, sinceMs: 1_000 }]),
  ),
});

describe("chains and cycles", () => {
  it("orders a chain from the last waiter to the root blocker, longest first", () => {
    const graph = buildGraph([lock("L1", "A", "B"), lock("L2", "B", "C"), lock("L3", "X", "Y")]);
    const { chains, cycles } = findPaths(graph, 10);
    expect(cycles).toEqual([]);
    expect(chains.map((chain) => [chain.sessions, chain.resources])).toEqual([
      [
        ["C", "B", "A"],
        ["L2", "L1"],
      ],
      [["Y", "X"], ["L3"]],
    ]);
  });

  it("finds a cycle once whichever member it is entered from, with each lock between the right members", () => {
    for (const order of [
      [0, 1, 2],
      [2, 0, 1],
      [1, 2, 0],
    ]) {
      const locks = [lock("L1", "A", "C"), lock("L2", "B", "A"), lock("L3", "C", "B")];
      const { cycles, chains } = findPaths(buildGraph(order.map((n) => locks[n]!)), 10);
      expect(cycles).toEqual([{ sessions: ["A", "B", "C"], resources: ["L2", "L3", "L1"] }]);
      expect(chains).toEqual([]);
    }
  });

  it("ends a chain that runs into a cycle at the cycle's member", () => {
    const { chains, cycles } = findPaths(
      buildGraph([lock("X", "A", "B"), lock("Y", "B", "A", "D")]),
      10,
    );
    expect(cycles).toHaveLength(1);
    expect(chains).toEqual([expect.objectContaining({ sessions: ["D", "B"], endsInCycle: true })]);
  });
});

describe("episodes", () => {
  it("counts a cycle that dissolves and re-forms within the gap once, and again after a longer absence", () => {
    const episodes = new Episodes();
    const cycle = { sessions: ["A", "B"], resources: ["Y", "X"] };
    const turned = { sessions: ["B", "A"], resources: ["X", "Y"] };
    episodes.observe([cycle], 0);
    episodes.observe([], 1_000);
    episodes.observe([turned], 3_000);
    expect(episodes.total).toBe(1);
    episodes.observe([], 3_000 + EPISODE_GAP_MS + 1);
    episodes.observe([cycle], 3_000 + EPISODE_GAP_MS + 2);
    expect(episodes.total).toBe(2);
  });
});

describe("the wait tracker", () => {
  const HOLDER = "a".repeat(32);
  const WAITER = "b".repeat(32);
  const valueOf = (session: string) =>
    encodeValue("f".repeat(40), '{"service":"s"}', 0, 10_000, session);
  const reads = (holder: string | null, ...waiting: string[]): Reads =>
    [0, 1, 2].map(() =>
      holder === null
        ? null
        : new StoredState(
            {
              value: valueOf(holder),
              pttlMs: 1e13,
              format: "string",
              holdCount: null,
              waiterList: waiting.map((session) => ({
                id: `w-${session}`,
                session,
                sinceMs: 1_000,
                expiresAtMs: 1e13,
                labels: {},
              })),
            },
            1e13,
            valueOf(holder),
            0,
          ),
    );
  const track = () => {
    const ended: EndedWait[] = [];
    const blamed: number[] = [];
    const tracker = new WaitTracker({
      ended: (end) => ended.push(end),
      blamed: (_holder, _resource, waitMs) => blamed.push(waitMs),
    });
    return { tracker, ended, blamed };
  };

  it("ends a wait as acquired when its own session holds the lock as its entry leaves", () => {
    const { tracker, ended } = track();
    tracker.update("k", reads(HOLDER, WAITER), 1_100);
    tracker.update("k", reads(null), 1_500);
    tracker.update("k", reads(WAITER, WAITER), 1_505);
    tracker.update("k", reads(WAITER), 1_510);
    expect(ended.map((end) => [end.outcome, end.endMs - end.wait.sinceMs])).toEqual([
      ["acquired", 510],
    ]);
  });

  it("ends a wait as gave-up only when the same holder still holds; as ended when the lock changed hands in between", () => {
    const { tracker, ended } = track();
    tracker.update("k", reads(HOLDER, WAITER), 1_100);
    tracker.update("k", reads(HOLDER), 1_200);
    tracker.update("j", reads(HOLDER, WAITER), 1_100);
    tracker.update("j", reads(null), 1_300);
    tracker.update("j", reads("c".repeat(32)), 1_400);
    expect(ended.map((end) => end.outcome)).toEqual(["gave-up", "ended"]);
  });

  it("charges the holder for the wait up to the moment it let go, not after", () => {
    const { tracker, blamed } = track();
    tracker.update("k", reads(HOLDER, WAITER), 1_100);
    tracker.update("k", reads(null), 1_900);
    tracker.sweep(5_000);
    expect(blamed.reduce((sum, ms) => sum + ms, 0)).toBe(900);
  });
});
