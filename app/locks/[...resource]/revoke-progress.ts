/**
 * Where a revoke ("ask to release") stands, from what the console shows: the revoke's follow-up
 * audit entry (written when the holder records its release, or past the deadline: see
 * lib/server/actions/revoke-follow-up.ts), the lock as polled, and the clock. Pure.
 */
import type { AuditEntry } from "@/lib/api/audit";

/** The follow-up entry of the revoke `auditId`: its outcome, and its detail without the prefix. */
export interface RevokeFollowUp {
  outcome: AuditEntry["outcome"];
  /** "released by the holder after 812 ms", "holder did not release before the deadline: …". */
  text: string;
  /** Set when the holder recorded its release: how long after the request. */
  releasedAfterMs: number | null;
}

export function revokeFollowUp(
  entries: readonly AuditEntry[],
  auditId: string,
): RevokeFollowUp | null {
  const prefix = `follow-up of ${auditId}: `;
  const entry = entries.find(
    (candidate) => candidate.action === "revoke" && candidate.detail.startsWith(prefix),
  );
  if (!entry) return null;
  const text = entry.detail.slice(prefix.length);
  const released = /released by the holder after (\d+) ms/.exec(text);
  return {
    outcome: entry.outcome,
    text,
    releasedAfterMs: released ? Number(released[1]) : null,
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
