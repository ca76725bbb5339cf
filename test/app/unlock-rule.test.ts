/**
 * The one rule of an on-call unlock (lib/api/unlock-rule.ts), as a table: format × liveness ×
 * the operator's choice → disposal, ask first, refusal. Issue 39's decision: whatever the liveness
 * reads, a value with validity left is tombstoned; only the explicit delete-now deletes.
 */
import { describe, expect, it } from "vitest";
import { defaultSettings, validityMs } from "@redlock-console/redlock";
import {
  DEFAULT_DRIFT_FACTOR,
  reservationMs,
  unlockRule,
  type UnlockCase,
  type UnlockDecision,
} from "@/lib/api";

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
const base: UnlockCase = {
  format: "this-library",
  liveness: "alive",
  choice: "tombstone",
  noSession: null,
  reservedForMs: 8_600,
  nowMs: NOW,
};
type Expected = Pick<UnlockDecision, "disposal" | "askFirst" | "refusal">;
const tombstone = (askFirst: boolean): Expected => ({
  disposal: "tombstone",
  askFirst,
  refusal: null,
});
const deleteNow: Expected = { disposal: "delete-now", askFirst: false, refusal: null };

describe("the unlock rule", () => {
  it.each<[string, Partial<UnlockCase>, Expected]>([
    ["alive: tombstone, ask first", {}, tombstone(true)],
    ["unresponsive: tombstone, ask first", { liveness: "unresponsive" }, tombstone(true)],
    // Issue 39 supersedes issue 31's "a gone holder's lock is released at once".
    ["gone: tombstone (gone is a guess)", { liveness: "gone" }, tombstone(false)],
    ["gone, delete-now chosen: deleted", { liveness: "gone", choice: "delete-now" }, deleteNow],
    ["alive, delete-now chosen: deleted, no asking", { choice: "delete-now" }, deleteNow],
    [
      "no session, nothing chosen: refuse until the operator chooses",
      { format: "other-library", liveness: "unknown" },
      { disposal: "refuse", askFirst: false, refusal: "no_session_choice" },
    ],
    [
      "no session, hold-until-ttl: tombstone",
      { format: "other-library", liveness: "unknown", noSession: "hold-until-ttl" },
      tombstone(false),
    ],
    [
      "no session, release-now: that is the explicit delete-now",
      { format: "other-library", liveness: "unknown", noSession: "release-now" },
      deleteNow,
    ],
    [
      "this library with session: false: as another library",
      { liveness: "unknown", noSession: "hold-until-ttl" },
      tombstone(false),
    ],
    ["no TTL: tombstone (capped)", { reservedForMs: null }, tombstone(true)],
    [
      "a Redisson hash: refused without delete-now",
      { format: "redisson-hash", liveness: "unknown" },
      { disposal: "refuse", askFirst: false, refusal: "hash_lock_needs_delete_now" },
    ],
    [
      "a Redisson hash, delete-now: deleted",
      { format: "redisson-hash", liveness: "unknown", choice: "delete-now" },
      deleteNow,
    ],
    [
      "a tombstone: nothing written, never lengthened",
      { format: "tombstone" },
      { disposal: "none", askFirst: false, refusal: null },
    ],
    ["a tombstone, delete-now: lifted", { format: "tombstone", choice: "delete-now" }, deleteNow],
    ["value unknown (force: true): tombstone", { format: null, liveness: null }, tombstone(false)],
    [
      "value unknown, delete-now: deleted",
      { format: null, liveness: null, choice: "delete-now" },
      deleteNow,
    ],
  ])("%s", (_name, overrides, expected) => {
    expect(unlockRule({ ...base, ...overrides })).toMatchObject(expected);
  });

  it("says gone as what it is, and the cost before the click", () => {
    const { words } = unlockRule({ ...base, liveness: "gone" });
    expect(words).toContain(
      "its connections closed and it stopped heartbeating: probably crashed (a guess, not proof)",
    );
    expect(words).toContain("nobody else gets it for at most 8.6 s");
    expect(words).not.toMatch(/nothing runs it|has crashed/);
  });

  it("says a whole number of seconds with its tenth, as every other bound reads (59.0 s)", () => {
    expect(unlockRule({ ...base, reservedForMs: 59_000 }).words).toContain(
      "nobody else gets it for at most 59.0 s",
    );
    expect(unlockRule({ ...base, reservedForMs: 58_901 }).words).toContain("at most 59.0 s");
  });

  it("says until when a delete-now may make two holders, in the dialog and the audit", () => {
    const decision = unlockRule({ ...base, choice: "delete-now", reservedForMs: 5_000 });
    const until = new Date(NOW + 5_000).toISOString();
    expect(decision.words).toContain(`may make two holders until ${until}`);
    expect(decision.audit).toContain("explicit delete-now");
    expect(decision.audit).toContain(`may make two holders until ${until}`);
  });

  it("says a standing tombstone is already reserved, and until when", () => {
    const { words } = unlockRule({ ...base, format: "tombstone", reservedForMs: 3_000 });
    expect(words).toContain(
      `already reserved by an earlier force-release until ${new Date(NOW + 3_000).toISOString()}`,
    );
  });
});

describe("the reservation's length", () => {
  it("is the library's drift formula, with the console's drift factor", () => {
    expect(DEFAULT_DRIFT_FACTOR).toBe(defaultSettings.driftFactor);
    for (const ttlMs of [1_000, 10_000, 30_250, 60_000, 123_456]) {
      const libraryDriftMs = ttlMs - validityMs(ttlMs, 0, DEFAULT_DRIFT_FACTOR);
      expect(reservationMs(5_000, ttlMs, DEFAULT_DRIFT_FACTOR)).toBe(5_000 + libraryDriftMs);
    }
  });

  it("takes the PTTL as the drift's base when the TTL is not known", () => {
    expect(reservationMs(40_000, null, 0.01)).toBe(40_000 + 400 + 2);
  });
});
