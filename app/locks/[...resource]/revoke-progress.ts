/**
 * Where a revoke ("ask to release") stands, from what the console shows: the revoke's follow-up
 * audit entry (written when the holder records its release, or past the deadline: see
 * lib/server/actions/revoke-follow-up.ts), the lock as polled, and the clock. Pure.
 */
import type { AuditEntry, HolderDid } from "@/lib/api";

/** The follow-up entry of the revoke `auditId`: its outcome, what the holder did, and its sentence. */
export interface RevokeFollowUp {
  outcome: AuditEntry["outcome"];
  holderDid: HolderDid | null;
  /** "released by the holder after 812 ms", "holder did not release before the deadline: …". */
  text: string;
  /** Set when the holder recorded its release: how long after the request. */
  releasedAfterMs: number | null;
}

/** Found by the entry's `followUpOf` field; `detail` is only shown, never parsed. */
export function revokeFollowUp(
  entries: readonly AuditEntry[],
  auditId: string,
): RevokeFollowUp | null {
  const entry = entries.find(
    (candidate) => candidate.action === "revoke" && candidate.followUpOf === auditId,
  );
  if (!entry) return null;
  return {
    outcome: entry.outcome,
    holderDid: entry.holderDid,
    // For display only: the id it follows is the one on screen already.
    text: entry.detail.replace(`follow-up of ${auditId}: `, ""),
    releasedAfterMs: entry.holderDid === "released" ? entry.releasedAfterMs : null,
  };
}

export type RevokePhase =
  /** The holder still has time to let go. */
  | { kind: "waiting"; remainingMs: number }
  /** The holder recorded its release. */
  | { kind: "released"; afterMs: number }
  /** The lock no longer holds the value asked about, and no release record has arrived (yet). */
  | { kind: "freed" }
  /** The deadline passed and the lock still holds the value: force-release is offered. */
  | { kind: "past-deadline"; followUp: RevokeFollowUp | null };

export function revokePhase(input: {
  nowMs: number;
  deadlineAt: number;
  /** The polled lock no longer holds the value the revoke asked about (free, or another value). */
  freed: boolean;
  followUp: RevokeFollowUp | null;
}): RevokePhase {
  const { nowMs, deadlineAt, freed, followUp } = input;
  if (followUp && followUp.releasedAfterMs !== null)
    return { kind: "released", afterMs: followUp.releasedAfterMs };
  if (freed) return { kind: "freed" };
  if (nowMs < deadlineAt) return { kind: "waiting", remainingMs: deadlineAt - nowMs };
  return { kind: "past-deadline", followUp };
}
