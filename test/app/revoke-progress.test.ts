import { describe, expect, it } from "vitest";
import { revokeFollowUp, revokePhase } from "@/app/locks/[...resource]/revoke-progress";
import type { AuditEntry } from "@/lib/api/audit";

const entry = (detail: string, outcome: AuditEntry["outcome"] = "success"): AuditEntry => ({
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
  nodes: [],
});

describe("a revoke's follow-up and phase", () => {
  it("finds the follow-up of its own revoke only, and reads the holder's release time", () => {
    const entries = [
      entry("follow-up of other: released by the holder after 5 ms"),
      entry("follow-up of mine: released by the holder after 812 ms"),
    ];
    expect(revokeFollowUp(entries, "mine")).toEqual({
      outcome: "success",
      text: "released by the holder after 812 ms",
      releasedAfterMs: 812,
    });
    expect(revokeFollowUp([entry("revoke requested of holder session x")], "mine")).toBeNull();
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
    const followUp = revokeFollowUp(
      [entry("follow-up of a: released by the holder after 90 ms")],
      "a",
    );
    expect(revokePhase({ nowMs: 9_000, deadlineAt: 3_000, freed: true, followUp })).toEqual({
      kind: "released",
      afterMs: 90,
    });
  });
});
