/**
 * Overlaps are never silent (issue 39, item 5), as tables of hand-built input, no Redis: which
 * ends of a hold or a reservation leave a risk on the lock (overlap.ts `overlapRiskOf`), and what
 * the next acquisition carries (`possibleOverlap`, its sentence, `afterExpired` kept for the
 * expiry cases). Three nodes (quorum 2); instants are console-clock ms. A hold of "a" by billing
 * since 1,000, valid until 10,000; alice's force-release (audit-1) lays its tombstone at 6,000,
 * valid until 9,000.
 */
import { describe, expect, it } from "vitest";
import type { OverlapReason } from "@/lib/api";
import type { Reads } from "@/lib/server/locks/rows/live-index";
import { encodeTombstone } from "@/lib/server/locks/read/tombstone";
import { majorityHold, type ForceMark, type Hold } from "@/lib/server/timeline/hold-fold";
import { endOf, startOf } from "@/lib/server/timeline/hold-transitions";
import { overlapRiskOf, type OverlapRisk } from "@/lib/server/timeline/overlap";

type Cause = Hold["causes"][number];
type State = NonNullable<Reads[number]>;
const D: Cause = "deleted";
const E: Cause = "expired";
const V: Cause = "evicted";
const U: Cause = "unknown";
const K: Cause = undefined;
const absent = null;
const noMark = undefined;

const owner = { labels: { service: "billing" }, acquiredAt: 1_000, ttlMs: 9e3, extensions: 0 };
const tombstone = encodeTombstone("a", {
  auditId: "audit-1",
  by: "alice",
  reason: "paged",
  at: 6_000,
});
const state = (value: string, expiresAtMs: number): State => ({
  value,
  expiresAtMs,
  format: value === tombstone ? "tombstone" : "string",
  holdCount: null,
  legacyOwner: null,
  acquiredAtMs: null,
  waiters: null,
  generation: 0,
  cut: null,
});
const none: Reads = [absent, absent, absent];
const replacedOnTwo: Reads = [state(tombstone, 9_000), state(tombstone, 9_000), absent];

const held = (causes: Cause[]): Hold => ({
  value: "a",
  ownerApart: owner,
  sinceMs: 1_000,
  expiresAtMs: 10_000,
  waiters: 0,
  causes,
  heldOn: [true, true, true],
  tombstone: null,
});
/** A force-release by ops of `value` from this console (deleted, or lifting a tombstone). */
const mark = (value: string): ForceMark => ({
  by: "ops",
  reason: "stuck",
  atMs: 0,
  values: [value],
});

/** The reservation that follows alice's tombstone over the hold, lost by each node for `causes`. */
function reservation(causes: Cause[]): Hold {
  const ended = endOf("k", held([U, U, K]), noMark, replacedOnTwo, 7_000);
  const next = majorityHold(replacedOnTwo, 2, 7_000)!;
  return { ...startOf("k", next, ended, undefined, 7_000).hold, causes };
}

type Expected = { reason: OverlapReason; by: string | null; sinceMs: number } | null;

describe("what a claim's end leaves on the lock for the next acquisition", () => {
  it.each<[string, Hold, ForceMark | undefined, Reads, number, Expected]>([
    // name, the hold or reservation, force mark, reads after, seen at, the risk left
    ["released by its holder: none", held([D, D, D]), noMark, none, 5_000, null],
    [
      "expired while held",
      held([E, E, K]),
      noMark,
      none,
      10_040,
      { reason: "expired-while-held", by: null, sinceMs: 10_000 },
    ],
    [
      "lost to evictions",
      held([V, V, K]),
      noMark,
      none,
      5_000,
      { reason: "evicted", by: null, sinceMs: 5_000 },
    ],
    // A tombstone its holder acknowledged before the console read the key looks just like this.
    ["force-released by a delete: none", held([D, D, D]), mark("a"), none, 5_000, null],
    [
      "replaced by a tombstone: the reservation decides",
      held([U, U, K]),
      noMark,
      replacedOnTwo,
      7_000,
      null,
    ],
    [
      "a tombstone the holder acknowledged (deleted): none",
      reservation([D, D, K]),
      noMark,
      none,
      7_250,
      null,
    ],
    [
      "a tombstone that ran out by its TTL",
      reservation([E, E, K]),
      noMark,
      none,
      9_100,
      { reason: "reservation-unacknowledged", by: "alice", sinceMs: 9_000 },
    ],
    [
      "a tombstone evicted before any ack",
      reservation([V, V, K]),
      noMark,
      none,
      8_000,
      { reason: "reservation-unacknowledged", by: "alice", sinceMs: 8_000 },
    ],
    [
      "a tombstone an operator lifted",
      reservation([D, D, D]),
      mark(tombstone),
      none,
      8_000,
      { reason: "reservation-lifted", by: "alice", sinceMs: 8_000 },
    ],
  ])("%s", (_name, hold, forceMark, reads, nowMs, expected) => {
    const risk = overlapRiskOf(endOf("k", hold, forceMark, reads, nowMs));
    if (expected === null) expect(risk).toBeNull();
    else expect(risk).toMatchObject({ ...expected, owner });
  });
});

/** The risk a reservation's end leaves, then the acquisition of "b" at `nowMs`. */
function acquisitionAfter(risk: OverlapRisk | null, nowMs: number, value = "b") {
  const next = majorityHold([state(value, 30_000), state(value, 30_000), absent], 2, nowMs)!;
  return startOf("k", next, null, risk ?? undefined, nowMs).fields;
}
const riskOf = (hold: Hold, forceMark: ForceMark | undefined, nowMs: number) =>
  overlapRiskOf(endOf("k", hold, forceMark, none, nowMs));

describe("the acquisition that follows", () => {
  it("after a reservation that ran out: possibleOverlap, said in words, no afterExpired", () => {
    const taken = acquisitionAfter(riskOf(reservation([E, E, K]), noMark, 9_100), 9_500);
    expect(taken).toMatchObject({
      kind: "acquired",
      value: "b",
      afterExpired: null,
      possibleOverlap: {
        reason: "reservation-unacknowledged",
        previousValue: tombstone,
        previousOwner: owner,
        since: 9_000,
        by: "alice",
      },
      summary:
        "acquired while the previous holder never confirmed it stopped (force-released by alice, reservation ran out at 00:00:09 UTC): both may have acted as holders",
    });
  });

  it("after a reservation the holder acknowledged: nothing", () => {
    const taken = acquisitionAfter(riskOf(reservation([D, D, K]), noMark, 7_250), 7_500);
    expect(taken.possibleOverlap).toBeNull();
    expect(taken.summary ?? null).toBeNull();
  });

  it("after an operator lifted the reservation: its own reason, both names", () => {
    const taken = acquisitionAfter(riskOf(reservation([D, D, D]), mark(tombstone), 8_000), 8_100);
    expect(taken.possibleOverlap).toMatchObject({ reason: "reservation-lifted", by: "alice" });
    expect(taken.summary).toBe(
      "acquired while the previous holder never confirmed it stopped (force-released by alice, reservation lifted by ops at 00:00:08 UTC): both may have acted as holders",
    );
  });

  it("after an expiry while held: possibleOverlap and afterExpired, the same holder and instant", () => {
    const taken = acquisitionAfter(riskOf(held([E, E, K]), noMark, 10_040), 10_500);
    expect(taken.possibleOverlap).toEqual({
      reason: "expired-while-held",
      previousValue: "a",
      previousOwner: owner,
      since: 10_000,
      by: null,
    });
    expect(taken.afterExpired).toEqual({ value: "a", owner, expiredAt: 10_000 });
    expect(taken.summary).toMatch(/^acquired after the previous holder's lock expired while held/);
  });

  it("the previous value set again is the same holder, not an overlap", () => {
    const risk = riskOf(held([E, E, K]), noMark, 10_040);
    expect(acquisitionAfter(risk, 10_500, "a").possibleOverlap).toBeNull();
  });
});
