/**
 * Why a hold expired while held, as tables of hand-built input, no Redis: the cause chosen from
 * what three nodes said of the holder's session, its sentence, durations in words, and the
 * session checks' schedule, order and bounds (a fake reader and a fake clock).
 */
import { describe, expect, it } from "vitest";
import type { ExpirySessionState, Transition } from "@/lib/api";
import type { SessionReading } from "@/lib/server/sessions/liveness";
import {
  expiryCause,
  SESSION_CHECK_DELAY_MS,
  type ExpiryCheck,
} from "@/lib/server/timeline/expiry-cause";
import { SessionChecks, type TransitionFields } from "@/lib/server/timeline/session-checks";
import { durationWords } from "@/lib/server/timeline/wording";

const SESSION = "0123456789abcdef0123456789abcdef";
const WINDOW_MS = 60_000;
/** The hold ran out at 96,000; the session was read at 100,000. */
const END_MS = 96_000;
const CHECKED_MS = 100_000;

interface Node {
  readonly ageMs?: number | null;
  readonly connected?: boolean | null;
  readonly uptimeS?: number;
  readonly answered?: boolean;
}
/** What one node says: a heartbeat `ageMs` old (null: no key) from a connection still open or not. */
const node = ({ ageMs = 300, connected = true, uptimeS = 3_600, answered = true }: Node) =>
  ({
    answered,
    uptimeS,
    timeoutZeroForMs: 3_600_000,
    keyServerForMs: 3_600_000,
    sessionValue:
      ageMs === null
        ? null
        : JSON.stringify({ v: 1, labels: {}, startedAt: 1, heartbeatMs: 1_000, clientId: 7 }),
    pttlMs: ageMs === null ? -2 : WINDOW_MS - ageMs,
    clientConnected: connected,
  }) satisfies SessionReading;

const fresh = node({});
const paused = node({ ageMs: 12_000 });
const crashed = node({ ageMs: 12_000, connected: false });
const crashedYoungNode = node({ ageMs: 12_000, connected: false, uptimeS: 10 });
const silent = node({ answered: false });

const check = (overrides: Partial<ExpiryCheck> = {}): ExpiryCheck => ({
  sessionId: SESSION,
  endMs: END_MS,
  evictedOn: [],
  ...overrides,
});

describe("why a hold that ran out at 96,000 expired, read at 100,000", () => {
  it.each<[string, SessionReading[], ExpirySessionState, number | null, string]>([
    // name, what each node said, state, last seen at, sentence
    [
      "heartbeats went on: alive",
      [fresh, fresh, paused],
      "alive",
      99_700,
      "the holder's session was alive (last heartbeat 3.7 s after it ran out): it failed to extend in time",
    ],
    [
      "late, connections open: unresponsive",
      [paused, paused, paused],
      "unresponsive",
      88_000,
      "the holder's session was unresponsive (last heartbeat 8.0 s before): paused or blocked (a stop signal, a long GC pause, a busy event loop)",
    ],
    [
      "late, connections closed on two: gone",
      [crashed, crashed, paused],
      "gone",
      88_000,
      "the holder's session was gone (last heartbeat 8.0 s before): its connections closed and it stopped heartbeating: probably crashed",
    ],
    [
      "closed, but on nodes up for 10 s: unresponsive",
      [crashedYoungNode, crashedYoungNode, crashed],
      "unresponsive",
      88_000,
      "the holder's session was unresponsive (last heartbeat 8.0 s before): paused or blocked (a stop signal, a long GC pause, a busy event loop)",
    ],
    [
      "no heartbeat anywhere: unresponsive",
      [node({ ageMs: null }), node({ ageMs: null }), node({ ageMs: null })],
      "unresponsive",
      null,
      "the holder's session was unresponsive (no heartbeat on the nodes): paused or blocked (a stop signal, a long GC pause, a busy event loop)",
    ],
    [
      "one node answered: unknown",
      [crashed, silent, silent],
      "unknown",
      88_000,
      "the holder's session could not be read (1 of 3 nodes answered)",
    ],
  ])("%s", (_name, readings, session, lastSeenAt, sentence) => {
    const { cause, summary } = expiryCause(check(), readings, CHECKED_MS);
    expect(cause).toEqual({
      session,
      sessionId: SESSION,
      lastSeenAt,
      checkedAt: CHECKED_MS,
      evictedOn: [],
    });
    expect(summary).toBe(`expired while held: ${sentence}`);
  });

  it("says the holder has no session when its value names none, without reading", () => {
    const { cause, summary } = expiryCause(check({ sessionId: null }), "not-checked", CHECKED_MS);
    expect(cause).toMatchObject({ session: "unknown", sessionId: null, checkedAt: null });
    expect(summary).toBe(
      "expired while held: the holder has no session (another library, or session: false): the console cannot tell whether it crashed, paused or failed to extend",
    );
  });

  it("says when the session was not checked (too many at once)", () => {
    const { cause, summary } = expiryCause(check(), "not-checked", CHECKED_MS);
    expect(cause).toMatchObject({ session: "not-checked", sessionId: SESSION, lastSeenAt: null });
    expect(summary).toBe(
      "expired while held: the holder's session was not checked (too many expiries at once)",
    );
  });

  it("names the nodes that evicted the value", () => {
    const { cause, summary } = expiryCause(
      check({ evictedOn: ["node-2"] }),
      [paused, paused, paused],
      CHECKED_MS,
    );
    expect(cause.evictedOn).toEqual(["node-2"]);
    expect(summary).toMatch(/: paused or blocked \(.*\); evicted on node-2 before$/);
  });
});

describe("durations in words", () => {
  it.each<[number, string]>([
    [0, "0 ms"],
    [850.4, "850 ms"],
    [1_000, "1.0 s"],
    [9_940, "9.9 s"],
    [9_960, "10 s"],
    [12_345, "12 s"],
    [119_000, "119 s"],
    [240_000, "4 min"],
    [3 * 3_600_000, "3 h"],
    [-5, "0 ms"],
  ])("%d ms: %s", (ms, words) => {
    expect(durationWords(ms)).toBe(words);
  });
});

/** A session checks set up with a fake clock and a reader whose answers the test gives. */
function harness(maxSessions = 8) {
  let nowMs = 0;
  const published: TransitionFields[] = [];
  const reads: Array<{ id: string; answer: (readings: SessionReading[]) => void }> = [];
  const fail: Array<() => void> = [];
  const checks = new SessionChecks(
    (id) =>
      new Promise((resolve, reject) => {
        reads.push({ id, answer: resolve });
        fail.push(() => reject(new Error("down")));
      }),
    (fields) => published.push(fields),
    maxSessions,
    () => nowMs,
  );
  const fields = (kind: Transition["kind"], resource: string, at: number): TransitionFields => ({
    kind,
    resource,
    at,
  });
  return {
    checks,
    published,
    reads,
    fail,
    fields,
    at: (ms: number) => (nowMs = ms),
    /** What was published, as "kind resource (session state)". */
    seen: () =>
      published.map((f) => `${f.kind} ${f.resource}${f.cause ? ` (${f.cause.session})` : ""}`),
  };
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("the session checks behind expired transitions", () => {
  it("reads the session once it would be late, then publishes the expiry with its cause", async () => {
    const h = harness();
    h.checks.expired("k", h.fields("expired", "k", 96_100), check(), 96_100);
    h.checks.tick(96_100 + SESSION_CHECK_DELAY_MS - 200);
    expect(h.reads).toHaveLength(0);
    h.checks.tick(END_MS + SESSION_CHECK_DELAY_MS);
    expect(h.reads.map((read) => read.id)).toEqual([SESSION]);
    h.at(CHECKED_MS);
    h.reads[0]!.answer([paused, paused, paused]);
    await settle();
    expect(h.seen()).toEqual(["expired k (unresponsive)"]);
    expect(h.published[0]!.summary).toMatch(/^expired while held: the holder's session was unre/);
  });

  it("keeps the lock's later transitions behind it, in order; other locks go on", async () => {
    const h = harness();
    h.checks.expired("k", h.fields("expired", "k", END_MS), check(), END_MS);
    h.checks.emit("k", h.fields("acquired", "k", 96_500));
    h.checks.emit("j", h.fields("acquired", "j", 96_600));
    h.checks.emit("", h.fields("gap", "", 96_700));
    expect(h.seen()).toEqual(["acquired j", "gap "]);
    h.checks.tick(CHECKED_MS);
    h.at(CHECKED_MS);
    h.reads[0]!.answer([fresh, fresh, fresh]);
    await settle();
    expect(h.seen()).toEqual(["acquired j", "gap ", "expired k (alive)", "acquired k"]);
    h.checks.emit("k", h.fields("released", "k", 101_000));
    expect(h.seen().at(-1)).toBe("released k");
  });

  it("reads a session once for all its holds that ran out together (one crashed process)", async () => {
    const h = harness();
    for (const key of ["a", "b", "c"])
      h.checks.expired(key, h.fields("expired", key, END_MS), check(), END_MS);
    expect(h.checks.pending).toBe(1);
    h.checks.tick(CHECKED_MS);
    h.checks.tick(CHECKED_MS + 100);
    expect(h.reads).toHaveLength(1);
    h.reads[0]!.answer([crashed, crashed, crashed]);
    await settle();
    expect(h.seen()).toEqual(["expired a (gone)", "expired b (gone)", "expired c (gone)"]);
    expect(h.checks.pending).toBe(0);
  });

  it("never puts a read off: a hold that ran out later is read again if the session read alive too early for it", async () => {
    const h = harness();
    const later = END_MS + 2_000;
    h.checks.expired("a", h.fields("expired", "a", END_MS), check(), END_MS);
    h.checks.expired("b", h.fields("expired", "b", later), check({ endMs: later }), later);
    h.checks.tick(END_MS + SESSION_CHECK_DELAY_MS);
    expect(h.reads).toHaveLength(1);
    h.at(END_MS + SESSION_CHECK_DELAY_MS);
    h.reads[0]!.answer([fresh, fresh, fresh]);
    await settle();
    expect(h.seen()).toEqual(["expired a (alive)"]);
    h.checks.tick(later + SESSION_CHECK_DELAY_MS - 1);
    expect(h.reads).toHaveLength(1);
    h.checks.tick(later + SESSION_CHECK_DELAY_MS);
    h.at(later + SESSION_CHECK_DELAY_MS);
    h.reads[1]!.answer([paused, paused, paused]);
    await settle();
    expect(h.seen()).toEqual(["expired a (alive)", "expired b (unresponsive)"]);
  });

  it("a session read gone (or unresponsive) holds for every hold that joined the read", async () => {
    const h = harness();
    const later = END_MS + 2_000;
    h.checks.expired("a", h.fields("expired", "a", END_MS), check(), END_MS);
    h.checks.expired("b", h.fields("expired", "b", later), check({ endMs: later }), later);
    h.checks.tick(END_MS + SESSION_CHECK_DELAY_MS);
    h.at(END_MS + SESSION_CHECK_DELAY_MS);
    h.reads[0]!.answer([crashed, crashed, crashed]);
    await settle();
    expect(h.seen()).toEqual(["expired a (gone)", "expired b (gone)"]);
    expect(h.reads).toHaveLength(1);
  });

  it("reads at most `maxSessions` sessions at once: beyond, not checked, published at once", async () => {
    const h = harness(2);
    const other = (n: number) => check({ sessionId: `${n}`.repeat(32) });
    for (const n of [1, 2, 3])
      h.checks.expired(`k${n}`, h.fields("expired", `k${n}`, END_MS), other(n), END_MS);
    expect(h.seen()).toEqual(["expired k3 (not-checked)"]);
    h.checks.tick(CHECKED_MS);
    expect(h.reads.map((read) => read.id)).toEqual(["1".repeat(32), "2".repeat(32)]);
    for (const read of h.reads) read.answer([paused, paused, paused]);
    await settle();
    expect(h.checks.pending).toBe(0);
    h.checks.expired("k4", h.fields("expired", "k4", END_MS), other(4), END_MS);
    expect(h.checks.pending).toBe(1);
  });

  it("publishes a holder without a session at once, unknown, without a read", () => {
    const h = harness();
    h.checks.expired("k", h.fields("expired", "k", END_MS), check({ sessionId: null }), END_MS);
    h.checks.tick(CHECKED_MS);
    expect(h.reads).toHaveLength(0);
    expect(h.seen()).toEqual(["expired k (unknown)"]);
  });

  it("a read that fails still publishes the expiry: the session could not be read", async () => {
    const h = harness();
    h.checks.expired("k", h.fields("expired", "k", END_MS), check(), END_MS);
    h.checks.tick(CHECKED_MS);
    h.fail[0]!();
    await settle();
    expect(h.seen()).toEqual(["expired k (unknown)"]);
    expect(h.published[0]!.summary).toBe(
      "expired while held: the holder's session could not be read",
    );
  });
});
