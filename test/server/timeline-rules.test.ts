/**
 * The timeline's rules as tables of hand-built input, no Redis: how a hold ended (released,
 * expired, force-released, evictions beside them), what a node's change records on the hold, its
 * extensions, the hold read from the nodes, a force-release's tombstone (the hold it replaced, its
 * own reservation and how that ended), coverage and its gaps, brief holds and episodes.
 * Three nodes (quorum 2); instants are console-clock ms.
 */
import { describe, expect, it } from "vitest";
import type { LockState, OwnerInfo, WaitersSummary } from "@/lib/api";
import type { Reads } from "@/lib/server/locks/rows/live-index";
import { BriefHolds } from "@/lib/server/timeline/brief-holds";
import { Coverage, type CoverageStep } from "@/lib/server/timeline/coverage";
import { Episodes } from "@/lib/server/timeline/episodes";
import {
  endKind,
  extendedTo,
  holdEnd,
  lossCause,
  majorityHold,
  ownerOf,
  recordNodeChange,
  type ForceMark,
  type Hold,
} from "@/lib/server/timeline/hold-fold";
import { endOf, startOf } from "@/lib/server/timeline/hold-transitions";
import { replacingTombstone, reservationEnd } from "@/lib/server/timeline/reservation";
import { encodeTombstone } from "@/lib/server/locks/read/tombstone";

type Cause = Hold["causes"][number];
type State = NonNullable<Reads[number]>;

// Why each node lost the value, in the tables: deleted, expired, evicted, no event seen, or kept.
const D: Cause = "deleted";
const E: Cause = "expired";
const V: Cause = "evicted";
const U: Cause = "unknown";
const K: Cause = undefined;

const NEVER = Number.POSITIVE_INFINITY;
const absent = null;
const down = undefined;
const noMark = undefined;

/** What a node holds: `value` until `expiresAtMs` (-1: no TTL). */
const state = (
  value: string,
  expiresAtMs: number,
  extra: { legacyOwner?: OwnerInfo; waiters?: WaitersSummary } = {},
): State => ({
  value,
  expiresAtMs,
  format: "string",
  holdCount: null,
  legacyOwner: extra.legacyOwner ?? null,
  acquiredAtMs: extra.legacyOwner?.acquiredAt ?? null,
  waiters: extra.waiters ?? null,
  generation: 0,
  cut: null,
});
/** A node holding "a" until `expiresAtMs`. */
const a = (expiresAtMs: number) => state("a", expiresAtMs);

/**
 * A hold of "a" since 1,000, valid until `expiresAtMs`, lost by each node for `causes`; held on
 * the nodes of `heldOn` (all three unless told).
 */
const hold = (causes: Cause[], expiresAtMs = 10_000, heldOn = [true, true, true]): Hold => ({
  value: "a",
  ownerApart: null,
  sinceMs: 1_000,
  expiresAtMs,
  waiters: 0,
  causes,
  heldOn,
  tombstone: null,
});

/** This console's force-release of `value` (null: force: any, its write under way). */
const mark = (value: string | null): ForceMark => ({
  by: "ops",
  reason: "stuck",
  atMs: 0,
  values: value === null ? null : [value],
});
/** A force: any that answered having removed `values` (none: it removed nothing). */
const settled = (...values: string[]): ForceMark => ({ ...mark(null), values });

describe("how a hold valid until 10,000 ended, once its value left the majority", () => {
  it.each<[string, Cause[], ForceMark | undefined, number, string]>([
    // name, why each node lost it, force mark, seen at, kind
    ["deleted everywhere: released", [D, D, D], noMark, 5_000, "released"],
    ["deleted on two, expired on one: released", [D, E, D], noMark, 5_000, "released"],
    ["expired on two: expired", [E, E, K], noMark, 10_040, "expired"],
    ["as many expiries as deletes: expired", [E, D, K], noMark, 10_040, "expired"],
    ["no events, before the validity ran out: deletes", [U, U, K], noMark, 5_000, "released"],
    ["no events, after the validity ran out: expiries", [U, U, K], noMark, 12_000, "expired"],
    ["the console's mark for the value", [D, D, D], mark("a"), 5_000, "force-released"],
    ["a force: any under way, the value deleted", [D, D, K], mark(null), 5_000, "force-released"],
    ["a force: any under way is no expiry's cause", [E, E, K], mark(null), 10_040, "expired"],
    ["a force: any under way is no eviction's cause", [V, V, K], mark(null), 5_000, "evicted"],
    ["a force: any that removed this value", [D, D, K], settled("b", "a"), 5_000, "force-released"],
    ["a force: any that removed another value", [D, D, K], settled("b"), 5_000, "released"],
    ["a force-release that removed nothing", [E, E, K], settled(), 10_040, "expired"],
    ["a mark for another value is not this hold's", [D, D, K], mark("b"), 5_000, "released"],
    ["a mark wins over expiries", [E, E, E], mark("a"), 10_040, "force-released"],
    ["evicted on one, deleted on two: released", [V, D, D], noMark, 5_000, "released"],
    ["evicted on one, expired on one: expired", [V, E, K], noMark, 10_040, "expired"],
    ["evicted on two: lost to evictions, not released", [V, V, K], noMark, 5_000, "evicted"],
    ["evicted on one, then the release's first delete", [V, D, K], noMark, 5_000, "released"],
    ["evicted on one of a hold on two: evicted", [V, K, K], noMark, 5_000, "evicted"],
  ])("%s", (_name, causes, forceMark, nowMs, kind) => {
    expect(endKind(hold(causes), forceMark, nowMs)).toBe(kind);
  });
});

describe("when a hold since 1,000 ended, and who ended it", () => {
  it.each<[string, Cause[], number, ForceMark | undefined, number, number]>([
    // name, causes, valid until, force mark, seen at, ended at
    ["released: when seen", [D, D, D], 10_000, noMark, 5_000, 5_000],
    ["expired: when its validity ran out", [E, E, K], 10_000, noMark, 10_040, 10_000],
    ["expiries seen early (clock skew): when seen", [E, E, K], 10_000, noMark, 9_000, 9_000],
    ["expired without a TTL (a late event): when seen", [E, E, K], NEVER, noMark, 7_000, 7_000],
    ["no events and no TTL: deletes, when seen", [U, U, U], NEVER, noMark, 99_000, 99_000],
    ["force-released: when seen", [E, E, E], 10_000, mark("a"), 10_040, 10_040],
  ])("%s", (_name, causes, expiresAtMs, forceMark, nowMs, endMs) => {
    const end = holdEnd(hold(causes, expiresAtMs), forceMark, nowMs);
    expect(end).toMatchObject({ endMs, heldMs: endMs - 1_000 });
    const forced = end.kind === "force-released";
    expect([end.by, end.reason]).toEqual(forced ? ["ops", "stuck"] : [null, null]);
  });

  it("never reports a negative hold time (an owner's acquiredAt ahead of the console clock)", () => {
    expect(holdEnd({ ...hold([D]), sinceMs: 6_000 }, noMark, 5_000).heldMs).toBe(0);
  });
});

describe("what node 1's change records on the hold of 'a'", () => {
  it.each<[string, State | null | undefined, number, Cause, Cause[], Cause | null]>([
    // name, the node's read after the change, node, its event, causes so far, recorded
    ["a delete", absent, 1, D, [], D],
    ["an expiry", absent, 1, E, [], E],
    ["an eviction", absent, 1, V, [], V],
    ["gone without an event (polled)", absent, 1, K, [], U],
    ["a new value without an event (delete and set in one read)", state("b", 9e3), 1, K, [], U],
    ["unreachable: not known to hold it", down, 1, K, [], U],
    ["still holds it (an extension)", a(9_000), 1, K, [], null],
    ["lost it before: the first cause stays", absent, 1, D, [K, E], null],
    ["no node (a reachability change)", absent, -1, K, [], null],
  ])("%s", (_name, read, nodeIndex, cause, causes, recorded) => {
    expect(lossCause(hold(causes), read, nodeIndex, cause)).toBe(recorded);
  });

  it("a node that held another value when the hold began, read after the others, lost nothing; once read holding 'a', its eviction is a loss", () => {
    const held = hold([], 10_000, [true, true, false]);
    recordNodeChange(held, state("f", 9_000), 2, K);
    expect(held.causes).toEqual([]);
    recordNodeChange(held, a(9_000), 2, K);
    recordNodeChange(held, absent, 2, V);
    expect(held.causes[2]).toBe(V);
  });

  it("a hold on two nodes of three, the third holding another value read late: one eviction ends it as evicted, whatever the read order", () => {
    const held = hold([], 10_000, [true, true, false]);
    recordNodeChange(held, state("f", 9_000), 2, K);
    recordNodeChange(held, absent, 0, V);
    expect(endKind(held, noMark, 5_000)).toBe("evicted");
  });
});

describe("an extension of the hold of 'a'", () => {
  it.each<[string, Reads, number, number | null]>([
    // name, the reads, the hold valid until, extended to
    ["moved later on two nodes", [a(20_000), a(21_000), a(9_000)], 10_000, 20_000],
    ["moved later on one node only", [a(20_000), a(10_000), a(9_000)], 10_000, null],
    ["moved by read jitter (under 250 ms)", [a(10_200), a(10_240), absent], 10_000, null],
    ["moved by just over the jitter", [a(10_251), a(10_251), absent], 10_000, 10_251],
    ["moved earlier", [a(8_000), a(8_000), absent], 10_000, null],
    ["TTL removed on two nodes (PERSIST)", [a(-1), a(-1), absent], 10_000, NEVER],
    ["already without a TTL", [a(-1), a(-1), absent], NEVER, null],
  ])("%s", (_name, reads, expiresAtMs, extended) => {
    expect(extendedTo(hold([], expiresAtMs), reads, 2)).toBe(extended);
  });
});

describe("the hold read from the nodes at 5,000", () => {
  it.each<[string, Reads, Partial<Hold> | null]>([
    // name, the reads, the hold
    ["on two: valid until the 2nd latest", [a(9_000), a(8_000), absent], { expiresAtMs: 8_000 }],
    ["on three: the 2nd latest", [a(9_000), a(7_000), a(8_000)], { expiresAtMs: 8_000 }],
    ["without a TTL on two", [a(-1), a(-1), a(8_000)], { expiresAtMs: NEVER }],
    ["no owner: since now", [a(9_000), a(9_000), down], { ownerApart: null, sinceMs: 5_000 }],
    ["no loss yet", [a(9_000), a(9_000), down], { causes: [K, K, K] }],
    ["on one node only", [a(9_000), absent, down], null],
    ["a conflict without a majority", [a(9_000), state("b", 9_000), absent], null],
  ])("%s", (_name, reads, expected) => {
    const found = majorityHold(reads, 2, 5_000);
    if (expected === null) expect(found).toBeNull();
    else expect(found).toMatchObject({ value: "a", ...expected });
  });

  it("is held since its owner acquired, with the most waiters any node lists", () => {
    const owner = { labels: { service: "billing" }, acquiredAt: 4_200, ttlMs: 9e3, extensions: 0 };
    const waiting = (count: number) => ({ count, oldestSince: 100 });
    const reads = [
      state("a", 9_000, { legacyOwner: owner, waiters: waiting(2) }),
      state("a", 9_000, { waiters: waiting(3) }),
      absent,
    ];
    expect(majorityHold(reads, 2, 5_000)).toMatchObject({
      ownerApart: owner,
      sinceMs: 4_200,
      waiters: 3,
    });
  });
});

/** The tombstone alice's force-release (audit "audit-1", at 6,000) lays over `replaced`. */
const tombstoneOf = (replaced: string) =>
  encodeTombstone(replaced, { auditId: "audit-1", by: "alice", reason: "paged", at: 6_000 });
/** A node holding the tombstone of `replaced` (default "a") until `expiresAtMs`. */
const t = (expiresAtMs: number, replaced = "a"): State => ({
  ...state(tombstoneOf(replaced), expiresAtMs),
  format: "tombstone",
});
const alice = { by: "alice", reason: "paged", auditId: "audit-1" };
const FORCED = "force-released";
const ACK = "release-acknowledged";
const ENDED = "reservation-ended";
const LIFTED = "reservation-lifted";

describe("the hold of 'a' when a force-release's tombstone is on the nodes", () => {
  const ops = { by: "ops", reason: "stuck", auditId: null };
  const opsAudited = { ...ops, auditId: "audit-9" };
  const marked = { ...mark("a"), auditId: "audit-9" };
  const nobody = { by: null, reason: null, auditId: null };
  const onTwo: Reads = [t(9e3), t(9e3), a(9e3)];
  const onOne: Reads = [t(9e3), absent, absent];
  const none: Reads = [absent, absent, absent];
  const ofB: Reads = [t(9e3, "b"), t(9e3, "b"), absent];
  it.each<[string, Reads, Cause[], ForceMark | undefined, string, object]>([
    // name, the reads, causes, force mark, how it ended, by / reason / audit id
    ["replaced on two: by its tombstone", onTwo, [U, U, K], noMark, FORCED, alice],
    ["replaced on one so far: proved", onOne, [U, D, D], noMark, FORCED, alice],
    ["a tombstone and the mark: its words", onTwo, [U, U, K], marked, FORCED, alice],
    ["deleted, with the mark (gone holder)", none, [D, D, D], marked, FORCED, opsAudited],
    ["a mark without an audit id", none, [D, D, D], mark("a"), FORCED, ops],
    ["another value's tombstone", ofB, [U, U, D], noMark, "released", nobody],
  ])("%s", (_name, reads, causes, forceMark, kind, actor) => {
    const end = holdEnd(hold(causes), forceMark, 7_000, replacingTombstone("a", reads));
    expect(end).toMatchObject({ kind, ...actor });
  });

  it("reads a tombstone on a majority as a reservation since it was laid, owned by nobody yet", () => {
    const reservation = majorityHold([t(9_000), t(8_000), absent], 2, 7_000)!;
    expect(reservation).toMatchObject({
      value: tombstoneOf("a"),
      ownerApart: null,
      sinceMs: 6_000,
      expiresAtMs: 8_000,
      tombstone: { ...alice, token: expect.stringMatching(/^[0-9a-f]{40}$/) },
    });
    expect(ownerOf(reservation)).toBeNull();
  });
});

describe("how a reservation laid at 6,000, valid until 9,000, ended", () => {
  const reservation = (causes: Cause[], heldOn = causes.map(() => true)) => ({
    ...hold(causes, 9_000, heldOn),
    value: tombstoneOf("a"),
    sinceMs: 6_000,
    tombstone: replacingTombstone("a", [t(9_000)])!,
  });
  const liftMark = mark(tombstoneOf("a"));
  it.each<[string, Cause[], ForceMark | undefined, number, string, number, string]>([
    // name, why each node lost it, force mark, seen at, kind, ended at, by
    ["deleted everywhere (the holder's ack)", [D, D, D], noMark, 7_000, ACK, 7_000, "alice"],
    ["no events before its TTL: deletes", [U, U, K], noMark, 7_000, ACK, 7_000, "alice"],
    ["expired on two: unacknowledged", [E, E, K], noMark, 9_040, ENDED, 9_000, "alice"],
    ["no events after its TTL: expiries", [U, U, K], noMark, 9_500, ENDED, 9_000, "alice"],
    ["as many deletes as expiries: no ack", [D, E, K], noMark, 9_040, ENDED, 9_000, "alice"],
    // Five nodes: a late acknowledgement (the next holder took three by expiry) deletes what was
    // left on two; those deletes may be seen before the third expiry.
    [
      "five: two deletes, one expiry seen first",
      [D, D, E, K, K],
      noMark,
      9_040,
      ENDED,
      9_000,
      "alice",
    ],
    ["five: deletes alone off the majority", [D, D, D, K, K], noMark, 7_000, ACK, 7_000, "alice"],
    ["evicted on two: no ack", [V, V, K], noMark, 7_000, ENDED, 7_000, "alice"],
    ["this console's mark of the tombstone", [D, D, D], liftMark, 7_000, LIFTED, 7_000, "ops"],
    ["the replaced hold's mark lifts nothing", [D, D, D], mark("a"), 7_000, ACK, 7_000, "alice"],
  ])("%s", (_name, causes, forceMark, nowMs, kind, endMs, by) => {
    const end = reservationEnd(reservation(causes), forceMark, nowMs);
    expect(end).toMatchObject({ kind, endMs, heldMs: endMs - 6_000, by });
  });
  it("laid on four of five: two deletes take it off the majority (an acknowledgement)", () => {
    const onFour = reservation([D, D, K, K, K], [true, true, true, true, false]);
    expect(reservationEnd(onFour, noMark, 7_000)).toMatchObject({ kind: ACK, endMs: 7_000 });
  });
});

describe("a force-release with a tombstone, transition by transition", () => {
  const owner = { labels: { service: "billing" }, acquiredAt: 1_000, ttlMs: 9e3, extensions: 0 };
  const held: Hold = { ...hold([U, U, K]), ownerApart: owner };
  const reads: Reads = [t(9_000), t(9_000), a(10_000)];

  it("ends the hold as force-released, then reserves the lock in its owner's name", () => {
    const ended = endOf("k", held, noMark, reads, 7_000);
    expect(ended.fields).toMatchObject({
      kind: FORCED,
      value: "a",
      heldMs: 6_000,
      ...alice,
      summary: 'force-released by alice: "paged" (audit audit-1)',
    });
    const next = majorityHold(reads, 2, 7_000)!;
    expect(startOf("k", next, ended, undefined, 7_000).fields).toMatchObject({
      kind: "releasing",
      value: tombstoneOf("a"),
      owner,
      ...alice,
      summary:
        "being released: the tombstone keeps everyone out until the holder acknowledges, at most 2.0 s (the replaced value's validity)",
    });
  });

  const lifter = { ...mark(tombstoneOf("a")), auditId: "audit-2" };
  it.each<[string, Cause[], ForceMark | undefined, number, string]>([
    ["acknowledged", [D, D, K], noMark, 7_250, "released by the holder (acknowledged after 1.3 s)"],
    [
      "ran out",
      [E, E, K],
      noMark,
      9_100,
      "reservation ended after 3.0 s: the holder never acknowledged, and the replaced value's validity is over",
    ],
    [
      "lifted",
      [D, D, D],
      lifter,
      8_000,
      'reservation lifted by ops: "stuck" (audit audit-2) after 2.0 s unacknowledged: the holder may not have stopped',
    ],
  ])("words the reservation's end: %s", (_name, causes, forceMark, nowMs, summary) => {
    const reserved = { ...majorityHold(reads, 2, 7_000)!, causes };
    const ended = endOf("k", reserved, forceMark, [absent, absent, absent], nowMs);
    expect(ended.fields.summary).toBe(summary);
  });

  it("flags the next acquisition as a possible overlap only after an expiry", () => {
    const next = majorityHold([a(20_000), a(20_000), absent], 2, 9_000)!;
    expect(startOf("k", next, null, undefined, 9_000).fields.afterExpired).toBeNull();
    // Issue 39 item 5: what the previous hold left is a risk with its reason (overlap.ts); the
    // reservation cases: test/server/timeline-overlap-rules.test.ts.
    const expired = {
      reason: "expired-while-held" as const,
      value: "b",
      owner: null,
      sinceMs: 8_000,
      by: null,
      liftedBy: null,
    };
    expect(startOf("k", next, null, expired, 9_000).fields.afterExpired).toEqual({
      value: "b",
      owner: null,
      expiredAt: 8_000,
    });
  });
});

type CoverageOp = (coverage: Coverage) => CoverageStep | void;
/** The index is whole, or not, at `atMs`; a node is relisted after a gap from `sinceMs`. */
const whole =
  (atMs: number): CoverageOp =>
  (coverage) =>
    coverage.check(true, atMs);
const lost =
  (atMs: number, recordedAny = true): CoverageOp =>
  (coverage) =>
    coverage.check(false, atMs, recordedAny);
const relist =
  (sinceMs: number, recordedAny = true): CoverageOp =>
  (coverage) =>
    coverage.gap(sinceMs, recordedAny);
const restored =
  (oldestAtMs: number | null, awaySinceMs: number): CoverageOp =>
  (coverage) =>
    coverage.restored(oldestAtMs, awaySinceMs);

function follow(ops: CoverageOp[]) {
  const coverage = new Coverage();
  const steps = ops.map((op) => op(coverage));
  return { coverage, last: steps.at(-1) };
}

describe("coverage: the gap recorded when the index is whole again", () => {
  it.each<[string, CoverageOp[], number | null]>([
    // name, what happened, the gap since (null: none, history begins)
    ["the first time: no gap, history begins", [whole(10)], null],
    ["a node lost: from the loss", [whole(10), lost(20), lost(25), whole(30)], 20],
    ["relisted while whole: from the relist", [whole(10), relist(18), lost(20), whole(30)], 18],
    ["two relists: the earlier", [whole(10), lost(20), relist(15), relist(17), whole(30)], 15],
    ["a later relist does not shorten it", [whole(10), lost(20), relist(25), whole(30)], 20],
    ["restored from a store: from its last transition", [restored(5, 9), whole(10)], 9],
    ["restored from an empty store: none", [restored(null, 9), whole(10)], null],
    // At start the index reads whole before any node is listed; its first listings make it not
    // whole, seen by a tick before their relist arrives: nothing recorded yet, history begins.
    ["lost before anything was recorded: none", [whole(10), lost(12, false), whole(30)], null],
    [
      "lost before anything recorded, then its relist: none",
      [whole(10), lost(12, false), relist(11, false), whole(30)],
      null,
    ],
    ["lost after something was recorded: from the loss", [whole(10), lost(12), whole(30)], 12],
  ])("%s", (_name, ops, gapSinceMs) => {
    expect(follow(ops).last).toEqual({ kind: "whole", gapSinceMs });
  });

  it.each<[string, CoverageOp[], CoverageStep["kind"]]>([
    ["not whole yet", [lost(10)], "unchanged"],
    ["whole, still whole", [whole(10), whole(20)], "unchanged"],
    ["whole, then a node lost", [whole(10), lost(20)], "gap-opened"],
    ["relisted while whole, then not whole", [whole(10), relist(18), lost(20)], "unchanged"],
  ])("%s: %s", (_name, ops, kind) => {
    expect(follow(ops).last).toMatchObject({ kind });
  });
});

describe("coverage: the history horizon", () => {
  const empty = { oldest: undefined, size: 0, capacity: 10 };
  const listed = "index-listed";
  it.each<[string, CoverageOp[], number | null, string, boolean]>([
    // name, what happened, complete since, basis, gap open
    ["not whole yet", [lost(10)], null, listed, true],
    ["whole: complete since then", [whole(10)], 10, listed, false],
    ["a gap closed: complete since the start", [whole(10), lost(20), whole(30)], 10, listed, false],
    ["a gap open", [whole(10), lost(20)], 10, listed, true],
    ["relisted while whole: a gap open", [whole(10), relist(18)], 10, listed, true],
    ["a late node before any record", [whole(10), relist(12, false), whole(30)], 30, listed, false],
    ["restored from a store: since its oldest", [restored(5, 9), whole(10)], 5, "store", false],
    ["restored from an empty store: since now", [restored(null, 9), whole(10)], 10, listed, false],
  ])("%s", (_name, ops, completeSince, basis, gapOpen) => {
    const horizon = follow(ops).coverage.horizon(empty, false);
    expect(horizon).toMatchObject({ completeSince, basis, gapOpen });
  });

  it("dates history from the oldest transition kept once the ring is full", () => {
    const { coverage } = follow([whole(10)]);
    const oldest = { at: 500 } as NonNullable<Parameters<Coverage["horizon"]>[0]["oldest"]>;
    expect(coverage.horizon({ oldest, size: 10, capacity: 10 }, true)).toEqual({
      completeSince: 500,
      basis: "retention",
      sampledSince: null,
      sampled: [],
      sampleNote: null,
      gapOpen: false,
      capacity: 10,
      retained: 10,
      durable: true,
    });
    expect(coverage.horizon({ oldest, size: 9, capacity: 10 }, true)).toMatchObject({
      completeSince: 10,
      basis: "index-listed",
    });
  });
});

describe("brief holds of one lock: counted once a majority of nodes saw them", () => {
  type Report = [node: number, holds: number, atMs: number];
  /** Node `node` saw `holds` values come and go, reported at `atMs`. */
  const saw = (node: number, holds: number, atMs: number): Report => [node, holds, atMs];
  it.each<[string, Report[], number, number]>([
    // name, reports, window closed at, changes of hands counted
    ["all three nodes saw 4", [saw(0, 4, 0), saw(1, 4, 10), saw(2, 4, 20)], 500, 4],
    ["two saw 4, one saw 3: the 2nd largest", [saw(0, 4, 0), saw(1, 3, 10), saw(2, 4, 20)], 500, 4],
    ["one saw 5, one saw 2", [saw(0, 5, 0), saw(1, 2, 10)], 500, 2],
    ["one node only: not a majority", [saw(0, 5, 0)], 500, 0],
    ["reports add up within the window", [saw(0, 1, 0), saw(0, 2, 100), saw(1, 3, 200)], 500, 3],
    ["the window still open", [saw(0, 4, 0), saw(1, 4, 10)], 499, 0],
  ])("%s", (_name, reports, closeAtMs, holds) => {
    const brief = new BriefHolds();
    for (const [node, count, atMs] of reports) brief.add("k", node, count, 3, atMs);
    expect(brief.close(closeAtMs, 2)).toEqual(holds > 0 ? [["k", holds]] : []);
  });

  it("forgets a window once counted, and every window when cleared", () => {
    const brief = new BriefHolds();
    brief.add("k", 0, 1, 3, 0);
    brief.add("k", 1, 1, 3, 0);
    expect(brief.close(500, 2)).toEqual([["k", 1]]);
    expect(brief.close(1_000, 2)).toEqual([]);
    brief.add("j", 0, 1, 3, 0);
    brief.add("j", 1, 1, 3, 0);
    brief.clear();
    expect(brief.close(500, 2)).toEqual([]);
  });
});

describe("partial and conflict episodes of one lock", () => {
  type Seen = [state: LockState | null, atMs: number];
  const partial = (atMs: number): Seen => ["partial", atMs];
  const conflict = (atMs: number): Seen => ["conflict", atMs];
  it.each<[string, Seen[], number[], Seen[]]>([
    // name, the row's states, ticks at, episodes reported (kind, since)
    ["partial for a second: one episode", [partial(0)], [999, 1_000, 2_000], [partial(0)]],
    ["an acquire in flight: partial, then held", [partial(0), ["held", 300]], [1_000], []],
    ["a release in flight: partial, then gone", [partial(0), [null, 300]], [1_000], []],
    ["partial, then conflict: anew", [partial(0), conflict(600)], [1000, 1600], [conflict(600)]],
    ["a lasting conflict keeps its start", [conflict(0), conflict(600)], [1000], [conflict(0)]],
  ])("%s", (_name, states, ticks, reported) => {
    const episodes = new Episodes();
    for (const [rowState, atMs] of states) episodes.track("k", rowState, atMs);
    const seen = ticks.flatMap((atMs) =>
      episodes.due(atMs).map(([, episode]): Seen => [episode.kind, episode.sinceMs]),
    );
    expect(seen).toEqual(reported);
  });
});
