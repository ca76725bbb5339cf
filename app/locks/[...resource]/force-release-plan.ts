/**
 * What the force-release dialog offers for a lock, by its holder's session (docs/holder-sessions.md).
 * Pure: the dialog renders the plan, the server decides again from a fresh read when it acts.
 */
import type { NoSessionChoice } from "@/lib/api/actions";
import type { HolderSession } from "@/lib/api/holder-session";
import type { LockRow } from "@/lib/api/locks";

export type ForceReleasePlan =
  /** Alive or unresponsive: ask the holder to release (revoke) first; force past the deadline. */
  | { kind: "ask-first" }
  /** No session (another library, `session: false`): the operator chooses, nothing preselected. */
  | { kind: "choose" }
  /** Force at once; `why` says what the force does. */
  | { kind: "force"; why: "any-value" | "gone" | "redisson" | "lift-tombstone" };

export interface PlanInput {
  lock: Pick<LockRow, "value" | "format" | "state">;
  holderSession: Pick<HolderSession, "state"> | null;
  /** "Delete any value (skip compare-and-delete)" is ticked. */
  force: boolean;
  /** A revoke answered 409 no_session: the holder cannot be asked after all. */
  revokeRefusedNoSession: boolean;
}

export function forceReleasePlan(input: PlanInput): ForceReleasePlan {
  const { lock, holderSession, force } = input;
  // Without a majority value there is nothing to compare with: only "any value" is possible.
  if (force || lock.value === null) return { kind: "force", why: "any-value" };
  if (lock.format === "redisson-hash") return { kind: "force", why: "redisson" };
  if (lock.format === "tombstone" || lock.state === "releasing")
    return { kind: "force", why: "lift-tombstone" };
  // The lock read always carries the holder's session; a missing one is treated as none.
  const state = holderSession?.state ?? "unknown";
  if (state === "unknown" || input.revokeRefusedNoSession) return { kind: "choose" };
  if (state === "gone") return { kind: "force", why: "gone" };
  return { kind: "ask-first" };
}

/** What forcing does on each node holding the value: null while the operator has not chosen. */
export function plannedDisposal(
  plan: ForceReleasePlan,
  noSession: NoSessionChoice | null,
): "delete" | "tombstone" | null {
  if (plan.kind === "ask-first") return "tombstone";
  if (plan.kind === "choose")
    return noSession === null ? null : noSession === "release-now" ? "delete" : "tombstone";
  return "delete";
}
