/**
 * The metrics' ownership figures are kept as rows change (FiguresTally), not walked per scrape:
 * after any sequence of changes, at any clock reading, they equal a walk of every row.
 */
import { describe, expect, it } from "vitest";
import type { IndexedState } from "@/lib/server/locks/watch/store/node-store";
import {
  factsOf,
  FiguresTally,
  type OwnershipFigures,
} from "@/lib/server/locks/rows/ownership-figures";
import { indexedState } from "./fixtures/indexed-state";

type Reads = ReadonlyArray<IndexedState | null | undefined>;
const LIMITS = { longHeldMs: 60_000, longWaitMs: 10_000, quorumSize: 3 };
const T0 = 1_700_000_000_000;

/** The figures by walking every row, as each scrape did before (the reference). */
function walkedFigures(rows: Iterable<Reads>, nowMs: number): OwnershipFigures {
  const figures = {
    oldestAgeS: 0,
    longHeld: 0,
    noTtl: 0,
    waiters: 0,
    oldestWaitS: 0,
    longWaits: 0,
  };
  const secondsSince = (epochMs: number) => Math.max(0, (nowMs - epochMs) / 1000);
  for (const reads of rows) {
    const facts = factsOf(reads, LIMITS.quorumSize);
    if (!facts) continue;
    if (facts.heldSinceMs !== null) {
      figures.oldestAgeS = Math.max(figures.oldestAgeS, secondsSince(facts.heldSinceMs));
      if (nowMs - facts.heldSinceMs > LIMITS.longHeldMs) figures.longHeld += 1;
    }
    if (facts.noTtl) figures.noTtl += 1;
    figures.waiters += facts.waiting;
    if (facts.waitSinceMs !== null) {
      figures.oldestWaitS = Math.max(figures.oldestWaitS, secondsSince(facts.waitSinceMs));
      if (nowMs - facts.waitSinceMs > LIMITS.longWaitMs) figures.longWaits += 1;
    }
  }
  return figures;
}

/** A small deterministic generator (mulberry32), so a failure replays. */
function randomOf(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed);
    return Math.floor((((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296) * below);
  };
}

const state = indexedState;

function randomReads(random: (below: number) => number, nowMs: number): Reads {
  const acquiredAtMs = random(3) === 0 ? null : nowMs - random(120_000);
  const waiters =
    random(3) === 0 ? { count: 1 + random(4), oldestSince: nowMs - random(30_000) } : null;
  return Array.from({ length: 5 }, () => {
    const kind = random(6);
    if (kind === 0) return undefined; // unreachable
    if (kind === 1) return null; // absent
    return state({
      expiresAtMs: random(4) === 0 ? -1 : nowMs + 10_000,
      acquiredAtMs,
      waiters: random(2) === 0 ? waiters : null,
    });
  });
}

describe("ownership figures kept as rows change", () => {
  it("equal a walk of every row after each of 5,000 random changes, at clocks moving both ways", () => {
    const random = randomOf(42);
    const tally = new FiguresTally(LIMITS);
    const rows = new Map<string, Reads>();
    let nowMs = T0;
    for (let step = 0; step < 5_000; step += 1) {
      nowMs += random(5) === 0 ? -random(5_000) : random(3_000);
      const key = `lock:${random(200)}`;
      const before = rows.get(key);
      const after = random(4) === 0 ? null : randomReads(random, nowMs);
      if (after) rows.set(key, after);
      else rows.delete(key);
      tally.change(
        before ? factsOf(before, LIMITS.quorumSize) : null,
        after ? factsOf(after, LIMITS.quorumSize) : null,
      );
      if (step % 7 === 0) expect(tally.figures(nowMs)).toEqual(walkedFigures(rows.values(), nowMs));
    }
    expect(tally.figures(nowMs)).toEqual(walkedFigures(rows.values(), nowMs));
  });

  it("counts a lock as long held once the clock passes the limit, and no longer once it goes", () => {
    const tally = new FiguresTally(LIMITS);
    const held = factsOf([state({ acquiredAtMs: T0 })], 1);
    tally.change(null, held);
    expect(tally.figures(T0 + 60_000)).toMatchObject({ longHeld: 0, oldestAgeS: 60, noTtl: 1 });
    expect(tally.figures(T0 + 60_001)).toMatchObject({ longHeld: 1, oldestAgeS: 60.001 });
    tally.change(held, null);
    expect(tally.figures(T0 + 70_000)).toEqual({
      oldestAgeS: 0,
      longHeld: 0,
      noTtl: 0,
      waiters: 0,
      oldestWaitS: 0,
      longWaits: 0,
    });
  });
});
