/**
 * The quorum rules (lib/server/locks/rows/quorum.ts) as tables of hand-built reads: no Redis.
 * Reads are per node: a value with its expiry (negative: none), null (absent), undefined (unreachable).
 */
import { describe, expect, it } from "vitest";
import type { WaitersSummary } from "@/lib/api";
import {
  leadingValue,
  majorityValue,
  quorumExpiry,
  quorumLargest,
  quorumSize,
  rowState,
  standingOf,
  waitersOf,
} from "@/lib/server/locks/rows/quorum";

interface Read {
  readonly value: string;
  readonly expiry: number;
  readonly waiters?: WaitersSummary | null;
}
const on = (value: string, expiry = 1_000): Read => ({ value, expiry });
const expiryOf = (read: Read) => read.expiry;
const _ = null;
const down = undefined;

describe("quorum size", () => {
  it.each([
    [1, 1],
    [2, 2],
    [3, 2],
    [4, 3],
    [5, 3],
    [7, 4],
  ])("%i nodes need %i", (nodes, size) => expect(quorumSize(nodes)).toBe(size));
});

describe("the quorum-th largest", () => {
  it.each([
    ["three of five, unsorted", [100, 500, 400, 300, 200], 3, 300],
    ["exactly a quorum", [900, 800, 1000], 3, 800],
    ["too few", [900, 800], 3, null],
    ["ties", [5, 5, 5], 2, 5],
    ["brief-hold counts: two of three nodes saw 4", [4, 0, 7], 2, 4],
  ])("%s", (_name, values, size, expected) => {
    expect(quorumLargest(values, size)).toBe(expected);
  });

  it("leaves its input unsorted", () => {
    const values = [1, 3, 2];
    quorumLargest(values, 2);
    expect(values).toEqual([1, 3, 2]);
  });
});

describe("the quorum-th latest expiry, for TTLs and instants alike", () => {
  it.each([
    ["TTLs: the 3rd largest of five", [100, 500, 400, 300, 200], 300],
    ["TTLs: no expiry on every holder", [-1, -1, -1], -1],
    ["TTLs: no expiry on two, a TTL on the third", [-1, -1, 700], 700],
    ["TTLs: no expiry on a quorum, a TTL beyond it", [-1, 50, -1, -1], -1],
    [
      "instants: the 3rd latest",
      [1_700_000_002_000, 1_700_000_001_000, 1_700_000_003_000],
      1_700_000_001_000,
    ],
    ["instants: none on two nodes", [-1, 1_700_000_001_000, -1], 1_700_000_001_000],
    ["too few holders", [500, 400], null],
  ])("%s", (_name, expiries, expected) => {
    expect(quorumExpiry(expiries, 3)).toBe(expected);
  });
});

describe("the leading value and the majority value, five nodes", () => {
  it.each([
    ["one value on three", [on("a"), on("a"), _, on("a"), _], "a", 3, "a"],
    ["one value on two", [on("a"), on("a"), _, _, _], "a", 2, null],
    ["a conflict: the value on more nodes", [on("a"), on("b"), on("a"), on("a"), _], "a", 3, "a"],
    [
      "a tie: the value that stays longest",
      [on("b", 1_200), on("a", 500), on("b"), on("a"), _],
      "b",
      2,
      null,
    ],
    [
      "a tie without expiry: never outlasts any TTL",
      [on("a", 9e9), on("b", -1), on("a"), on("b"), _],
      "b",
      2,
      null,
    ],
    ["a tie on count and expiry: the smaller value", [on("b"), on("a"), down, _, _], "a", 1, null],
    ["unreachable nodes hold nothing", [on("a"), down, on("a"), down, _], "a", 2, null],
    ["nobody holds it", [_, _, down, _, _], null, 0, null],
  ])("%s", (_name, reads, leading, holders, majority) => {
    const found = leadingValue(reads, expiryOf);
    expect(found?.value ?? null).toBe(leading);
    expect(found?.holders.length ?? 0).toBe(holders);
    expect(majorityValue(reads, 3, expiryOf)?.value ?? null).toBe(majority);
  });

  it("gives the holders in node order, the first one first", () => {
    const first = on("a", 300);
    const reads = [_, first, on("b"), on("a", 200), on("a", 100)];
    expect(majorityValue(reads, 3, expiryOf)?.holders).toEqual([first, reads[3], reads[4]]);
  });
});

describe("a row's state, five nodes", () => {
  it.each([
    ["held: one value on three", [on("a"), on("a"), _, on("a"), _], "held"],
    ["held: one value on all five", [on("a"), on("a"), on("a"), on("a"), on("a")], "held"],
    ["partial: one value on two", [on("a"), on("a"), _, _, _], "partial"],
    [
      "partial: two unreachable nodes are not holders",
      [on("a"), down, on("a"), down, _],
      "partial",
    ],
    [
      "conflict: two values, even with a majority",
      [on("a"), on("b"), on("a"), on("a"), _],
      "conflict",
    ],
    ["conflict: two values on one node each", [_, on("a"), _, on("b"), _], "conflict"],
    ["none: nobody holds it", [_, down, _, _, _], null],
  ])("%s", (_name, reads, state) => {
    expect(rowState(reads, 3)).toBe(state);
  });
});

describe("where a value stands, five nodes", () => {
  it.each([
    ["on three", [on("a"), on("a"), _, on("a"), _], "majority"],
    ["on two, a third unreachable", [on("a"), on("a"), down, _, _], "possible"],
    ["on one, two unreachable", [on("a"), down, down, _, _], "possible"],
    ["on two, the others absent", [on("a"), on("a"), _, _, _], "lost"],
    ["on two, replaced on the others", [on("a"), on("a"), on("b"), on("b"), on("b")], "lost"],
    ["nowhere", [_, _, _, _, _], "lost"],
  ])("%s", (_name, reads, standing) => {
    expect(standingOf(reads, "a", 3)).toBe(standing);
  });
});

describe("waiters across nodes", () => {
  const waiting = (count: number, oldestSince: number | null): Read => ({
    ...on("a"),
    waiters: { count, oldestSince },
  });
  it.each([
    ["none anywhere", [on("a"), _, down], { count: 0, oldestSince: null }],
    [
      "the fullest list counts",
      [waiting(2, 500), waiting(3, 700), on("a")],
      { count: 3, oldestSince: 500 },
    ],
    [
      "the oldest entry on any node",
      [waiting(1, 900), waiting(1, 400), _],
      { count: 1, oldestSince: 400 },
    ],
    [
      "a list without a start time",
      [waiting(2, null), down, waiting(1, 800)],
      { count: 2, oldestSince: 800 },
    ],
    [
      "null waiters (the index's none)",
      [{ ...on("a"), waiters: null }],
      { count: 0, oldestSince: null },
    ],
  ])("%s", (_name, reads, summary) => {
    expect(waitersOf(reads)).toEqual(summary);
  });
});
