/**
 * Issue 41 item 5: 8 contenders wait, but the chains name only 6 of their waits: a chain follows
 * one edge per participant, so a session's second wait (on another lock, or a second contender on
 * the same lock) shows nowhere, nor does a wait on a lock nobody holds. `waitList` names all 8.
 */
import { describe, expect, it } from "vitest";
import { buildGraph, type WaitedLock } from "@/lib/server/contention/graph";
import { findPaths } from "@/lib/server/contention/paths";
import { listWaits } from "@/lib/server/contention/wait-list";

const labelsOf = (id: string) => ({ service: `svc-${id}`, host: "h", pid: String(id.length) });

const lock = (
  resource: string,
  holder: string | null,
  ...waits: Array<[waiter: string, sinceMs: number]>
): WaitedLock => ({
  resource,
  holder: holder === null ? null : { id: holder, labels: labelsOf(holder), value: `v-${holder}` },
  waits: new Map(
    waits.map(([participant, sinceMs], n) => [
      `${resource}#${n}`,
      { participant, labels: labelsOf(participant), sinceMs },
    ]),
  ),
});

/** A holds L1 and L3, B holds L2 and waits for L1, H holds L5: 8 waits, 2 of them off the chains. */
const LOCKS = [
  lock("L1", "A", ["B", 1_000], ["D", 2_000], ["D", 3_000], ["F", 4_000]),
  lock("L2", "B", ["C", 5_000], ["E", 6_000]),
  lock("L3", "A", ["C", 7_000]),
  lock("L5", "H", ["G", 8_000]),
];

describe("every live wait", () => {
  it("the chains show 6 of the 8 waits (the cause); the wait list shows all 8, longest first", () => {
    const graph = buildGraph(LOCKS);
    expect(graph.waits).toBe(8);
    const { chains } = findPaths(graph, 50);
    // The waits a chain names: each step is (waiter, lock); one wait per step.
    const named = new Set(
      chains.flatMap((chain) => chain.resources.map((r, i) => `${chain.sessions[i]}>${r}`)),
    );
    expect([...named].sort()).toEqual(["B>L1", "C>L2", "D>L1", "E>L2", "F>L1", "G>L5"]);

    const listed = listWaits(LOCKS, 200);
    expect(listed.map((wait) => `${wait.waiter}>${wait.resource}`)).toEqual([
      "B>L1",
      "D>L1",
      "D>L1",
      "F>L1",
      "C>L2",
      "E>L2",
      "C>L3",
      "G>L5",
    ]);
    expect(listed[6]).toEqual({
      waiter: "C",
      labels: labelsOf("C"),
      resource: "L3",
      since: 7_000,
      holder: { id: "A", labels: labelsOf("A") },
    });
  });

  it("lists a wait on a lock nobody holds, with no holder, and keeps the longest when capped", () => {
    const locks = [...LOCKS, lock("L4", null, ["K", 500])];
    expect(findPaths(buildGraph(locks), 50).chains.some((c) => c.sessions[0] === "K")).toBe(false);
    const listed = listWaits(locks, 3);
    expect(listed.map((wait) => [wait.waiter, wait.resource, wait.holder])).toEqual([
      ["K", "L4", null],
      ["B", "L1", { id: "A", labels: labelsOf("A") }],
      ["D", "L1", { id: "A", labels: labelsOf("A") }],
    ]);
  });
});
