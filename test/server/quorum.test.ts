/**
 * The quorum rules (lib/server/locks/rows/quorum.ts) as tables of hand-built reads, no Redis.
 * Reads are per node: a value with its expiry (negative: none), null (absent) or undefined
 * (unreachable).
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
/** A node holding "a" (until `expiry`), or "b". */
const a = (expiry?: number) => on("a", expiry);
const b = (expiry?: number) => on("b", expiry);
/** An instant, console clock. */
const at = (ms: number) => 1_700_000_000_000 + ms;
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
    ["instants: the 3rd latest", [at(2_000), at(1_000), at(3_000)], at(1_000)],
    ["instants: none on two nodes", [-1, at(1_000), -1], at(1_000)],
    ["too few holders", [500, 400], null],
  ])("%s", (_name, expiries, expected) => {
    expect(quorumExpiry(expiries, 3)).toBe(expected);
  });
});

describe("the leading value and the majority value, five nodes", () => {
  it.each([
    ["one value on three", [a(), a(), _, a(), _], "a", 3, "a"],
    ["one value on two", [a(), a(), _, _, _], "a", 2, null],
    ["a conflict: the value on more nodes", [a(), b(), a(), a(), _], "a", 3, "a"],
    ["a tie: the value that stays longest", [b(1_200), a(500), b(), a(), _], "b", 2, null],
    ["a tie: no expiry outlasts any TTL", [a(9e9), b(-1), a(), b(), _], "b", 2, null],
    ["a tie on count and expiry: the smaller value", [b(), a(), down, _, _], "a", 1, null],
    ["unreachable nodes hold nothing", [a(), down, a(), down, _], "a", 2, null],
    ["nobody holds it", [_, _, down, _, _], null, 0, null],
  ])("%s", (_name, reads, leading, holders, majority) => {
    const found = leadingValue(reads, expiryOf);
    expect(found?.value ?? null).toBe(leading);
    expect(found?.holders.length ?? 0).toBe(holders);
    expect(majorityValue(reads, 3, expiryOf)?.value ?? null).toBe(majority);
  });

  it("gives the holders in node order, the first one first", () => {
    const first = a(300);
    const reads = [_, first, b(), a(200), a(100)];
    expect(majorityValue(reads, 3, expiryOf)?.holders).toEqual([first, reads[3], reads[4]]);
  });
});

describe("a row's state, five nodes", () => {
  it.each([
    ["held: one value on three", [a(), a(), _, a(), _], "held"],
    ["held: one value on all five", [a(), a(), a(), a(), a()], "held"],
    ["partial: one value on two", [a(), a(), _, _, _], "partial"],
    ["partial: unreachable nodes are not holders", [a(), down, a(), down, _], "partial"],
    ["conflict: two values, even with a majority", [a(), b(), a(), a(), _], "conflict"],
    ["conflict: two values on one node each", [_, a(), _, b(), _], "conflict"],
    ["none: nobody holds it", [_, down, _, _, _], null],
  ])("%s", (_name, reads, state) => {
    expect(rowState(reads, 3)).toBe(state);
  });
});

describe("where a value stands, five nodes", () => {
  it.each([
    ["on three", [a(), a(), _, a(), _], "majority"],
    ["on two, a third unreachable", [a(), a(), down, _, _], "possible"],
    ["on one, two unreachable", [a(), down, down, _, _], "possible"],
    ["on two, the others absent", [a(), a(), _, _, _], "lost"],
    ["on two, replaced on the others", [a(), a(), b(), b(), b()], "lost"],
    ["nowhere", [_, _, _, _, _], "lost"],
  ])("%s", (_name, reads, standing) => {
    expect(standingOf(reads, "a", 3)).toBe(standing);
  });
});

describe("waiters across nodes", () => {
  const waiting = (count: number, oldestSince: number | null): Read => ({
    ...a(),
    waiters: { count, oldestSince },
  });
  it.each([
    // name, the reads, waiters counted, waiting since
    ["none anywhere", [a(), _, down], 0, null],
    ["the fullest list counts", [waiting(2, 500), waiting(3, 700), a()], 3, 500],
    ["the oldest entry on any node", [waiting(1, 900), waiting(1, 400), _], 1, 400],
    ["a list without a start time", [waiting(2, null), down, waiting(1, 800)], 2, 800],
    ["null waiters (the index's none)", [{ ...a(), waiters: null }], 0, null],
  ])("%s", (_name, reads, count, oldestSince) => {
    expect(waitersOf(reads)).toEqual({ count, oldestSince });
  });
});
