import { describe, expect, it } from "vitest";
import { revokeFollowUp, revokePhase } from "@/app/locks/[...resource]/revoke-progress";
import type { AuditEntry } from "@/lib/api";

const entry = (
  detail: string,
  fields: Partial<AuditEntry> = {},
  outcome: AuditEntry["outcome"] = "success",
): AuditEntry => ({
  id: "e",
  at: 0,
  action: "revoke",
  actor: "token",
  clientIp: "127.0.0.1",
  userAgent: "test",
  resources: ["r"],
  value: "v",
  reason: "why",
  outcome,
  detail,
  followUpOf: null,
  holderDid: null,
  releasedAfterMs: null,
  nodes: [],
  person: null,
  credential: null,
  tokenName: null,
  role: null,
  rule: null,
  incident: null,
  ...fields,
});
const released = (of: string, releasedAfterMs: number) =>
  entry(`follow-up of ${of}: released by the holder after ${releasedAfterMs} ms`, {
    followUpOf: of,
    holderDid: "released",
    releasedAfterMs,
  });

describe("a revoke's follow-up and phase", () => {
  it("finds the follow-up of its own revoke only, and reads the holder's release time", () => {
    const entries = [released("other", 5), released("mine", 812)];
    expect(revokeFollowUp(entries, "mine")).toEqual({
      outcome: "success",
      holderDid: "released",
      text: "released by the holder after 812 ms",
      releasedAfterMs: 812,
    });
    expect(revokeFollowUp([entry("revoke requested of holder session x")], "mine")).toBeNull();
  });

  it("reads the fields, not the sentence: a detail that only reads like a follow-up is not one", () => {
    const lookalike = entry("follow-up of mine: released by the holder after 5 ms");
    expect(revokeFollowUp([lookalike], "mine")).toBeNull();
    const reworded = entry("the holder let go (812 ms)", {
      followUpOf: "mine",
      holderDid: "released",
      releasedAfterMs: 812,
    });
    expect(revokeFollowUp([reworded], "mine")).toMatchObject({ releasedAfterMs: 812 });
  });

  it("has no release time when the holder did not release", () => {
    const ignored = entry(
      "follow-up of mine: holder did not release before the deadline: still held on 5 node(s); force-release it",
      { followUpOf: "mine", holderDid: "did-not-release" },
      "failure",
    );
    expect(revokeFollowUp([ignored], "mine")).toEqual({
      outcome: "failure",
      holderDid: "did-not-release",
      text: "holder did not release before the deadline: still held on 5 node(s); force-release it",
      releasedAfterMs: null,
    });
  });

  it.each([
    [
      "counts down before the deadline",
      { nowMs: 1_000, freed: false },
      { kind: "waiting", remainingMs: 2_000 },
    ],
    [
      "offers force past the deadline",
      { nowMs: 3_000, freed: false },
      { kind: "past-deadline", followUp: null },
    ],
    ["says the lock moved on without a record", { nowMs: 1_000, freed: true }, { kind: "freed" }],
  ] as const)("%s", (_name, state, phase) => {
    expect(revokePhase({ ...state, deadlineAt: 3_000, followUp: null })).toEqual(phase);
  });

  it("says released by the holder once it recorded its release, even past the deadline", () => {
    const followUp = revokeFollowUp([released("a", 90)], "a");
    expect(revokePhase({ nowMs: 9_000, deadlineAt: 3_000, freed: true, followUp })).toEqual({
      kind: "released",
      afterMs: 90,
    });
  });
});
