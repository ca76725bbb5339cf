/**
 * What the force-release dialog offers for a lock: lib/api/unlock-rule.ts, the very rule the server
 * applies when it acts (from a fresh read), fed with what the lock page shows.
 */
import type { HolderSession, LockRow, NoSessionChoice } from "@/lib/api";
import {
  DEFAULT_DRIFT_FACTOR,
  reservationMs,
  unlockRule,
  type UnlockDecision,
  type UnlockFormat,
} from "@/lib/api";

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
  /** "Any value" is ticked (`force: true`). */
  force: boolean;
  /** A revoke answered 409 no_session: the holder cannot be asked after all. */
  revokeRefusedNoSession: boolean;
}

/** The row's format as the rule tells it apart; null: no value to compare (any value). */
function formatOf(input: PlanInput): UnlockFormat | null {
  const { lock, force } = input;
  if (force || lock.value === null) return null;
  if (lock.format === "redisson-hash") return "redisson-hash";
  if (lock.format === "tombstone" || lock.state === "releasing") return "tombstone";
  return lock.value.startsWith("rl1:") ? "this-library" : "other-library";
}

/** The rule's decision for the lock as shown (the words count from `nowMs`, `reservedForMs` from the row). */
export function unlockDecision(
  input: PlanInput,
  choice: { noSession: NoSessionChoice | null; deleteNow: boolean },
  reservedForMs: number | null,
  nowMs: number,
): UnlockDecision {
  const format = formatOf(input);
  // The lock read always carries the holder's session; a missing one is treated as none.
  const state = input.revokeRefusedNoSession
    ? "unknown"
    : (input.holderSession?.state ?? "unknown");
  return unlockRule({
    format,
    liveness: format === null ? null : state,
    choice: choice.deleteNow ? "delete-now" : "tombstone",
    noSession: choice.noSession,
    reservedForMs,
    nowMs,
  });
}

/**
 * How long the row's value keeps everyone out once tombstoned: its validity (on a majority) plus
 * drift; null without a majority or a TTL (the server caps such a tombstone instead).
 */
export function plannedReservationMs(lock: Pick<LockRow, "validityMs" | "owner">): number | null {
  const { validityMs, owner } = lock;
  const ttlMs = owner.kind === "labelled" ? owner.ttlMs : null;
  return validityMs === null || validityMs < 0
    ? null
    : reservationMs(validityMs, ttlMs, DEFAULT_DRIFT_FACTOR);
}

export function forceReleasePlan(input: PlanInput): ForceReleasePlan {
  const decision = unlockDecision(input, { noSession: null, deleteNow: false }, null, 0);
  const format = formatOf(input);
  if (format === null) return { kind: "force", why: "any-value" };
  if (decision.refusal === "hash_lock_needs_delete_now") return { kind: "force", why: "redisson" };
  if (decision.disposal === "none") return { kind: "force", why: "lift-tombstone" };
  if (decision.refusal === "no_session_choice") return { kind: "choose" };
  if (decision.askFirst) return { kind: "ask-first" };
  return { kind: "force", why: "gone" };
}

/** What forcing does on each node holding the value: null while the operator has not chosen. */
export function plannedDisposal(
  input: PlanInput,
  noSession: NoSessionChoice | null,
): "delete" | "tombstone" | null {
  const decision = unlockDecision(input, { noSession, deleteNow: false }, null, 0);
  if (decision.disposal === "tombstone") return "tombstone";
  // A refusal waits for the operator's choice; "none" writes nothing (a tombstone stands).
  return decision.disposal === "delete-now" ? "delete" : null;
}
