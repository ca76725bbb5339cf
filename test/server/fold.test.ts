import { describe, expect, it } from "vitest";
import { foldResource } from "@/lib/server/locks/rows/fold";
import { quorumExpiry } from "@/lib/server/locks/rows/quorum";
import { parseRedissonHash, type NodeKeyState } from "@/lib/server/locks/read/key-state";
import { globMatch } from "@/lib/server/locks/read/glob";

const ids = ["node-1", "node-2", "node-3", "node-4", "node-5"];
const held = (value: string, pttlMs: number): NodeKeyState => ({
  value,
  pttlMs,
  format: "string",
  holdCount: null,
});

describe("folding one resource across five nodes", () => {
  it("is held when one value is on a majority, with validity = the 3rd largest TTL", () => {
    const row = foldResource(
      "r",
      [held("a", 900), held("a", 1000), null, held("a", 800), null],
      ids,
      3,
    )!;
    expect(row).toMatchObject({ state: "held", value: "a", quorum: 3, validityMs: 800 });
    expect(row.nodes.map((node) => node.value)).toEqual(["a", "a", null, "a", null]);
  });

  it("uses the quorum-th largest TTL, not the smallest, when more than a majority hold it", () => {
    expect(
      foldResource(
        "r",
        [held("a", 100), held("a", 500), held("a", 400), held("a", 300), held("a", 200)],
        ids,
        3,
      )!.validityMs,
    ).toBe(300);
  });

  it("is partial when no value reaches a majority", () => {
    const row = foldResource("r", [held("a", 900), held("a", 900), null, null, null], ids, 3)!;
    expect(row).toMatchObject({ state: "partial", quorum: 2, validityMs: null });
  });

  it("is a conflict when nodes hold different values, and names the majority value", () => {
    const row = foldResource(
      "r",
      [held("a", 900), held("b", 900), held("a", 900), held("a", 500), null],
      ids,
      3,
    )!;
    expect(row).toMatchObject({ state: "conflict", value: "a", quorum: 3, validityMs: 500 });
  });

  it("does not count unreachable nodes as absent or holding", () => {
    const row = foldResource(
      "r",
      [held("a", 900), undefined, held("a", 900), undefined, null],
      ids,
      3,
    )!;
    expect(row).toMatchObject({ state: "partial", quorum: 2 });
    expect(row.nodes[1]).toMatchObject({ reachable: false, value: null });
    expect(row.nodes[4]).toMatchObject({ reachable: true, value: null });
  });

  it("reports -1 validity for keys without expiry, and null when nobody holds it", () => {
    expect(quorumExpiry([-1, -1, -1], 3)).toBe(-1);
    expect(quorumExpiry([-1, -1, 700], 3)).toBe(700);
    expect(foldResource("r", [null, null, null, null, null], ids, 3)).toBeNull();
  });
});

describe("Redisson hash locks", () => {
  it("recognises <uuid>:<thread> fields with counts, ignoring the rwlock mode field", () => {
    expect(parseRedissonHash({ "6f1c-uuid:1": "2" })).toEqual({
      value: "6f1c-uuid:1",
      holdCount: 2,
    });
    expect(parseRedissonHash({ mode: "read", "b:7": "1", "a:3": "1" })).toEqual({
      value: "a:3,b:7",
      holdCount: 2,
    });
  });

  it("rejects hashes that are not locks", () => {
    expect(parseRedissonHash({ name: "alice" })).toBeNull();
    expect(parseRedissonHash({ "a:1": "x" })).toBeNull();
    expect(parseRedissonHash({})).toBeNull();
  });
});

describe("glob matching (Redis MATCH syntax)", () => {
  it.each([
    ["*", "anything", true],
    ["orders:*", "orders:42", true],
    ["orders:*", "order:42", false],
    ["a?c", "abc", true],
    ["a[bx]c", "axc", true],
    ["a[^b]c", "abc", false],
    ["a[a-c]c", "abc", true],
    ["a\\*", "a*", true],
    ["a\\*", "ab", false],
    ["h?llo", "héllo", true],
  ])("%s against %s is %s", (pattern, text, expected) => {
    expect(globMatch(pattern, text)).toBe(expected);
  });

  it("stays fast on a pattern built to backtrack", () => {
    const started = performance.now();
    expect(globMatch("*a*a*a*a*a*a*a*a*b", "a".repeat(20_000))).toBe(false);
    // A backtracking matcher takes exponential time here (minutes, not ms): ten times the old
    // 500 ms bound still tells it apart on a loaded machine.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
