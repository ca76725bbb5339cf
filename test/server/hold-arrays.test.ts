/**
 * A hold's per-node arrays cost nothing until they say something: holds read on every node, with
 * no loss yet (nearly all of 100k locks × 5 nodes), share one frozen array for each, and a change
 * gives a hold its own copy without touching the others'. Nor does a hold keep the owner its value
 * carries. No Redis: hand-built reads, three nodes.
 */
import { describe, expect, it } from "vitest";
import type { Reads } from "@/lib/server/locks/rows/live-index";
import { encodeValue } from "@/lib/redlock/value";
import { ownerOfValue } from "@/lib/server/locks/read/ownership";
import { majorityHold, ownerOf, recordNodeChange } from "@/lib/server/timeline/hold-fold";
import { indexedState } from "./fixtures/indexed-state";

type State = NonNullable<Reads[number]>;

const state = (value: string): State => indexedState({ value, expiresAtMs: 9_000 });
const onAll = (value: string): Reads => [state(value), state(value), state(value)];

describe("the per-node arrays of holds", () => {
  it("are shared by holds read on every node with no loss yet", () => {
    const a = majorityHold(onAll("a"), 2, 5_000)!;
    const b = majorityHold(onAll("b"), 2, 5_000)!;
    expect(a.causes).toBe(b.causes);
    expect(a.heldOn).toBe(b.heldOn);
    expect(a.heldOn).toEqual([true, true, true]);
  });

  it("give a hold its own causes at its first loss, leaving the other holds' as they were", () => {
    const a = majorityHold(onAll("a"), 2, 5_000)!;
    const b = majorityHold(onAll("b"), 2, 5_000)!;
    recordNodeChange(a, null, 1, "deleted");
    expect(a.causes).toEqual([undefined, "deleted", undefined]);
    expect(b.causes).toEqual([undefined, undefined, undefined]);
  });

  it("keep a hold's own heldOn while a node is not read holding it, and share again once all are", () => {
    const reads: Reads = [state("a"), state("a"), state("f")];
    const a = majorityHold(reads, 2, 5_000)!;
    const b = majorityHold(onAll("b"), 2, 5_000)!;
    expect(a.heldOn).toEqual([true, true, false]);
    recordNodeChange(a, state("a"), 2, undefined);
    expect(a.heldOn).toBe(b.heldOn);
    recordNodeChange(a, null, 2, "evicted");
    expect(a.causes).toEqual([undefined, undefined, "evicted"]);
  });

  it("keep no owner an rl1: value carries: it is decoded from the value when a transition asks", () => {
    const value = encodeValue("ab".repeat(20), '{"service":"billing"}', 4_200, 30_000);
    const hold = majorityHold(onAll(value), 2, 5_000)!;
    expect(hold.ownerApart).toBeNull();
    expect(hold.sinceMs).toBe(4_200);
    expect(ownerOf(hold)).toEqual(ownerOfValue(value));
    expect(ownerOf(hold)?.labels).toEqual({ service: "billing" });
  });
});
