import { describe, expect, it } from "vitest";
import { formatClock } from "@/components/ui/format";
import {
  defaultDeadlineS,
  deleteNowLabel,
  dialogActions,
  failureTitle,
  onlyWayOf,
} from "@/app/locks/[...resource]/dialog-actions";
import { forceReleasePlan, type PlanInput } from "@/app/locks/[...resource]/force-release-plan";
import type { HolderSessionState } from "@/lib/api";

const held = { value: "rl1:…", format: "string", state: "held" } as const;

/** The dialog's actions for a holder in `state`, planned by the rule as the dialog plans them. */
function actionsFor(state: HolderSessionState, lock: PlanInput["lock"] = held, asked = false) {
  const plan = forceReleasePlan({
    lock,
    holderSession: { state },
    force: false,
    revokeRefusedNoSession: false,
  });
  return dialogActions({ resource: "orders:42", plan, liveness: state, asked });
}

describe("the force-release dialog says what it does (issue 39 item 6)", () => {
  it("an alive holder: titled by asking, Ask to release the primary, Force release beside it", () => {
    const actions = actionsFor("alive");
    expect(actions.title).toBe("Ask the holder to release orders:42");
    expect(actions).toMatchObject({ primary: "ask", askOffered: true, deleteNowOffered: true });
    expect(actions.askWords).toContain("it can answer");
  });

  it("a paused holder cannot answer: titled by forcing, asking said to help only if it resumes", () => {
    const actions = actionsFor("unresponsive");
    expect(actions.title).toBe("Force release orders:42");
    expect(actions.primary).toBe("force");
    expect(actions.askOffered).toBe(true); // the rule still asks first: it may resume
    expect(actions.askWords).toContain("it cannot answer while paused");
    expect(actions.askWords).toContain("Force release reserves the lock now");
  });

  it("a gone holder, and one without a session, are not offered asking", () => {
    for (const state of ["gone", "unknown"] as const) {
      const actions = actionsFor(state);
      expect(actions.title).toBe("Force release orders:42");
      expect(actions.askOffered).toBe(false);
      expect(actions.askWords).toBeNull();
    }
    // The no-session choice is the delete itself: no second delete control.
    expect(actionsFor("unknown").deleteNowOffered).toBe(false);
  });

  it("a Redisson hash needs the explicit delete-now; a tombstone is lifted by it", () => {
    const redisson = actionsFor("alive", { ...held, format: "redisson-hash" });
    expect(redisson).toMatchObject({ forceNeedsDeleteNow: true, deleteNowOffered: true });
    const tombstone = actionsFor("alive", { ...held, format: "tombstone", state: "releasing" });
    expect(tombstone).toMatchObject({ forceNeedsDeleteNow: false, deleteNowOffered: true });
    expect(tombstone.askOffered).toBe(false);
  });

  it("once asked, the dialog stays the asking one", () => {
    const plan = { kind: "ask-first" } as const;
    const actions = dialogActions({ resource: "r", plan, liveness: "unresponsive", asked: true });
    expect(actions.title).toBe("Ask the holder to release r");
  });

  it("a deadline that fits: the default for an alive holder, no longer than the validity for a paused one", () => {
    expect(defaultDeadlineS("alive", 8_600)).toBe(30);
    expect(defaultDeadlineS("unresponsive", 8_600)).toBe(9);
    expect(defaultDeadlineS("unresponsive", 200)).toBe(1); // the API's minimum
    expect(defaultDeadlineS("unresponsive", 120_000)).toBe(30);
    expect(defaultDeadlineS("unresponsive", null)).toBe(30);
  });

  it("the delete-now label says until when two processes may act as holders", () => {
    const untilMs = Date.UTC(2026, 10, 27, 12, 34, 56);
    expect(deleteNowLabel(untilMs)).toBe(
      `Delete now (may make two holders until ${formatClock(untilMs)})`,
    );
    expect(deleteNowLabel(null)).toBe("Delete now (may make two holders until the holder stops)");
  });

  it("says beside the delete-now why it is the way on, and the fix beside a refusal", () => {
    expect(onlyWayOf({ kind: "force", why: "redisson" })).toContain("Redisson hash lock");
    expect(onlyWayOf({ kind: "force", why: "lift-tombstone" })).toContain("standing tombstone");
    expect(onlyWayOf({ kind: "ask-first" })).toBeNull();
    expect(failureTitle("hash_lock_needs_delete_now")).toContain("only by Delete now (below)");
    expect(failureTitle("quorum_unavailable")).toContain("too few nodes answered");
    expect(failureTitle(undefined)).toBe("Force-release failed");
  });
});
