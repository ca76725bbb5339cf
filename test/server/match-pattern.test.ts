/**
 * `GET /api/locks?match=`: the glob runs in time linear in each key, and filtering a large index
 * with hostile patterns never holds the event loop long enough to stall other requests.
 */
import { describe, expect, it } from "vitest";
import type { LockRow } from "@/lib/api";
import { compileGlob, globMatch } from "@/lib/server/locks/read/glob";
import { BTree } from "@/lib/server/locks/rows/btree";
import { pageOf, type RowSource } from "@/lib/server/locks/pages/page";

/** Reference matcher through a RegExp: fine for the short inputs of the comparison below. */
function referenceMatch(glob: string, text: string): boolean {
  let source = "";
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index]!;
    if (char === "*") source += "[\\s\\S]*";
    else if (char === "?") source += "[\\s\\S]";
    else if (char === "\\" && index + 1 < glob.length) source += `\\${glob[++index]}`;
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`).test(text);
}

// 83-character names, like the 50,000 locks of ~87 characters.
const names = Array.from(
  { length: 50_000 },
  (_, index) =>
    `service:orders:region-eu-west-1:tenant-${index}:${"k".repeat(30)}:${index.toString(36)}`,
);

function bestOfThreeMs(run: () => void): number {
  let best = Infinity;
  for (let round = 0; round < 3; round += 1) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

describe("the match glob", () => {
  it("agrees with a reference matcher on random patterns of * ? and literals, short and over 32 tokens", () => {
    const alphabet = ["a", "b", "*", "?", "\\*"];
    let seed = 42;
    const random = (below: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % below;
    for (let round = 0; round < 3_000; round += 1) {
      const patternLength = round % 10 === 0 ? 33 + random(30) : random(8);
      const glob = Array.from({ length: patternLength }, () => alphabet[random(5)]).join("");
      const text = Array.from({ length: random(40) }, () => ["a", "b", "*"][random(3)]).join("");
      expect(globMatch(glob, text), `${glob} against ${text}`).toBe(referenceMatch(glob, text));
    }
  });

  it("handles classes, escapes and characters beyond the BMP", () => {
    expect(globMatch("[a-c]x[^0-9]", "bxz")).toBe(true);
    expect(globMatch("[a-c]x[^0-9]", "bx5")).toBe(false);
    expect(globMatch("k?y", "k😀y")).toBe(true);
    expect(globMatch("*😀", "key😀")).toBe(true);
    expect(globMatch("[abc", "b")).toBe(true);
    expect(globMatch(`*${"?".repeat(40)}X`, `${"a".repeat(40)}X`)).toBe(true);
  });

  it("costs about the same with 40 '?' after a star as with none (linear, no backtracking)", () => {
    const hostile = compileGlob(`*${"?".repeat(40)}X`);
    const plain = compileGlob("*X");
    const hostileMs = bestOfThreeMs(() => names.forEach((name) => hostile(name)));
    const plainMs = bestOfThreeMs(() => names.forEach((name) => plain(name)));
    console.log(
      `50,000 keys: '*'+40'?'+'X' ${hostileMs.toFixed(0)} ms, '*X' ${plainMs.toFixed(0)} ms`,
    );
    // Two bit words instead of one; the backtracking matcher took ~40 times longer.
    expect(hostileMs).toBeLessThan(plainMs * 6 + 20);
  });

  it("matches a long literal against a 200,000-character key in linear time", () => {
    const key = "a".repeat(200_000);
    const elapsedMs = bestOfThreeMs(() => globMatch(`*${"a".repeat(254)}b`, key));
    expect(elapsedMs).toBeLessThan(bestOfThreeMs(() => globMatch("*b", key)) * 20 + 20);
  });
});

function row(resource: string): LockRow {
  return {
    resource,
    state: "held",
    value: "v".repeat(40),
    format: "string",
    quorum: 5,
    quorumSize: 3,
    validityMs: 10_000,
    nodes: [],
    owner: { kind: "unknown", format: "string" },
    heldSince: null,
    waiters: { count: 0, oldestSince: null },
    flags: [],
  };
}

/**
 * The rows pageOf cuts pages from, as the live index keeps them (ordered in a B+ tree), built in
 * memory from names: this file tests the filter's CPU behaviour, not the nodes.
 */
function rowSource(resources: readonly string[]): RowSource {
  const rows = new BTree<string, true>(resources.map((name) => [name, true]));
  return {
    keysFrom: (low) => rows.keys(low),
    total: () => rows.size,
    row: (key) => row(key),
    counts: () => ({ held: rows.size, partial: 0, conflict: 0, releasing: 0 }),
    version: 1,
    sweep: () => {},
    unreachableNodes: () => [],
    truncated: false,
    listing: () => ({ complete: true, nodes: [], skippedShapes: null }),
  };
}

describe("filtering a 50,000-lock index", () => {
  const snapshot = rowSource(names);

  it("lets other requests run while ten hostile filters are under way", async () => {
    let finished = 0;
    const startedMs = performance.now();
    const pages = Array.from({ length: 10 }, (_, index) =>
      pageOf(snapshot, { match: `*${"?".repeat(30 + index)}X`, limit: 100 }).then((page) => {
        finished += 1;
        return page;
      }),
    );
    // Stands for any other request (e.g. /api/health): it runs as soon as the filters yield.
    const finishedWhenOtherRan = await new Promise<number>((resolve) =>
      setTimeout(() => resolve(finished), 1),
    );
    const otherWaitedMs = performance.now() - startedMs;
    const all = await Promise.all(pages);
    console.log(
      `ten hostile filters: another task waited ${otherWaitedMs.toFixed(0)} ms, all done after ${(performance.now() - startedMs).toFixed(0)} ms`,
    );
    expect(all.every((page) => page.total === 0)).toBe(true);
    // A synchronous filter would have finished all ten before any other callback could run.
    expect(finishedWhenOtherRan).toBe(0);
  });

  it("walks only the range of the glob's literal prefix, and pages stay in key order", async () => {
    const query = { match: "service:orders:*:tenant-1*", limit: 10 };
    const first = await pageOf(snapshot, query);
    const second = await pageOf(snapshot, { ...query, cursor: first.nextCursor! });
    expect(first.total).toBe(second.total);
    expect(second.items[0]!.resource > first.items.at(-1)!.resource).toBe(true);
  });
});
