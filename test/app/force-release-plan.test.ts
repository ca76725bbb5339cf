import { describe, expect, it } from "vitest";
import {
  forceReleasePlan,
  plannedDisposal,
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
      "a gone holder: force at once",
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
    expect(plannedDisposal({ kind: "ask-first" }, null)).toBe("tombstone");
    expect(plannedDisposal({ kind: "choose" }, null)).toBeNull();
    expect(plannedDisposal({ kind: "choose" }, "release-now")).toBe("delete");
    expect(plannedDisposal({ kind: "choose" }, "hold-until-ttl")).toBe("tombstone");
    expect(plannedDisposal({ kind: "force", why: "gone" }, null)).toBe("delete");
  });
});
