import { describe, expect, it } from "vitest";
import {
  forceReleasePlan,
  plannedDisposal,
  plannedReservationMs,
  unlockDecision,
  type PlanInput,
} from "@/app/locks/[...resource]/force-release-plan";

const held = { value: "rl1:…", format: "string", state: "held" } as const;
const input = (overrides: Partial<PlanInput>): PlanInput => ({
  lock: held,
  holderSession: { state: "alive" },
  force: false,
  revokeRefusedNoSession: false,
  ...overrides,
});

describe("what the force-release dialog offers", () => {
  it.each<[string, Partial<PlanInput>, ReturnType<typeof forceReleasePlan>]>([
    ["an alive holder: ask first", {}, { kind: "ask-first" }],
    [
      "an unresponsive holder: ask first",
      { holderSession: { state: "unresponsive" } },
      { kind: "ask-first" },
    ],
    [
      // Forced without asking (a crashed holder cannot answer), yet tombstoned (issue 39).
      "a gone holder: force without asking",
      { holderSession: { state: "gone" } },
      { kind: "force", why: "gone" },
    ],
    [
      "a holder without a session: choose",
      { holderSession: { state: "unknown" } },
      { kind: "choose" },
    ],
    ["no session read at all: choose", { holderSession: null }, { kind: "choose" }],
    [
      "a revoke refused with no_session: choose",
      { revokeRefusedNoSession: true },
      { kind: "choose" },
    ],
    ["'delete any value': force", { force: true }, { kind: "force", why: "any-value" }],
    [
      "no majority value: force any value",
      { lock: { ...held, value: null } },
      { kind: "force", why: "any-value" },
    ],
    [
      "a Redisson hash: force, no tombstone",
      { lock: { ...held, format: "redisson-hash" } },
      { kind: "force", why: "redisson" },
    ],
    [
      "a tombstone: force lifts it",
      { lock: { ...held, format: "tombstone", state: "releasing" } },
      { kind: "force", why: "lift-tombstone" },
    ],
  ])("%s", (_name, overrides, plan) => {
    expect(forceReleasePlan(input(overrides))).toEqual(plan);
  });

  it("plans a tombstone for an asked holder, and nothing before the operator chooses", () => {
    expect(plannedDisposal(input({}), null)).toBe("tombstone");
    const noSession = input({ holderSession: { state: "unknown" } });
    expect(plannedDisposal(noSession, null)).toBeNull();
    expect(plannedDisposal(noSession, "release-now")).toBe("delete");
    expect(plannedDisposal(noSession, "hold-until-ttl")).toBe("tombstone");
  });

  // Issue 39 supersedes issue 31's "a gone holder's lock is released at once": "gone" is a guess,
  // so its lock is tombstoned like any other; only the explicit delete-now deletes.
  it("plans a tombstone for a gone holder and for any value, and nothing the server would refuse", () => {
    expect(plannedDisposal(input({ holderSession: { state: "gone" } }), null)).toBe("tombstone");
    expect(plannedDisposal(input({ force: true }), null)).toBe("tombstone");
    const redisson = input({ lock: { ...held, format: "redisson-hash" } });
    expect(plannedDisposal(redisson, null)).toBeNull();
    const tombstone = input({ lock: { ...held, format: "tombstone", state: "releasing" } });
    expect(plannedDisposal(tombstone, null)).toBeNull();
  });

  it("says a gone holder's cost before the click, in the rule's words", () => {
    const lock = {
      ...held,
      validityMs: 8_500,
      owner: { kind: "unknown", format: "string" },
    } as const;
    const reservedForMs = plannedReservationMs(lock);
    expect(reservedForMs).toBe(8_500 + Math.round(0.01 * 8_500) + 2);
    const { words } = unlockDecision(
      input({ holderSession: { state: "gone" } }),
      { noSession: null, deleteNow: false },
      reservedForMs,
      0,
    );
    expect(words).toContain("probably crashed (a guess, not proof)");
    expect(words).toContain("nobody else gets it for at most 8.6 s");
  });
});
