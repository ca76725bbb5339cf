"use client";

import Link from "next/link";
import { formatDurationMs, formatTimestamp } from "@/components/ui/format";
import { useServerNow } from "@/hooks/use-server-now";
import { MAX_REVOKE_DEADLINE_MS, MIN_REVOKE_DEADLINE_MS, type RevokeResponse } from "@/lib/api";
import { revokePhase, type RevokeFollowUp } from "./revoke-progress";

/** The deadline field, in seconds: what the holder is given to let go. */
export function DeadlineField({
  seconds,
  onChange,
  disabled,
}: {
  seconds: string;
  onChange: (seconds: string) => void;
  disabled: boolean;
}) {
  return (
    <label>
      Deadline for the holder to let go (seconds)
      <input
        type="number"
        inputMode="decimal"
        min={MIN_REVOKE_DEADLINE_MS / 1_000}
        max={MAX_REVOKE_DEADLINE_MS / 1_000}
        step={0.5}
        required
        disabled={disabled}
        value={seconds}
        onChange={(event) => onChange(event.target.value)}
      />
    </label>
  );
}

/** The deadline in ms, or null when the field is not a deadline the API accepts. */
export function deadlineMsOf(seconds: string): number | null {
  const deadlineMs = Math.round(Number(seconds) * 1_000);
  return Number.isFinite(deadlineMs) &&
    deadlineMs >= MIN_REVOKE_DEADLINE_MS &&
    deadlineMs <= MAX_REVOKE_DEADLINE_MS
    ? deadlineMs
    : null;
}

export interface AskProgressProps {
  asked: RevokeResponse;
  followUp: RevokeFollowUp | null;
  /** The polled lock no longer holds the value asked about. */
  freed: boolean;
  onForce: () => void;
  forcePending: boolean;
}

/** After "Ask to release": the deadline counting down, then what the holder did, or the fallback. */
export function AskProgress({ asked, followUp, freed, onForce, forcePending }: AskProgressProps) {
  const nowMs = useServerNow(100);
  if (nowMs === null) return null;
  const phase = revokePhase({ nowMs, deadlineAt: asked.deadlineAt, freed, followUp });
  return (
    <section className="stack" aria-label="Ask to release">
      <p className="muted">
        Asked holder session{" "}
        <Link href={`/sessions/${asked.sessionId}`}>
          <code>{asked.sessionId.slice(0, 8)}</code>
        </Link>{" "}
        to release at {formatTimestamp(asked.serverTime)} (audit {asked.auditId.slice(0, 8)}).
      </p>
      <div role="status">
        {phase.kind === "waiting" && (
          <p className="notice notice-info">Waiting for the holder to let go.</p>
        )}
        {phase.kind === "released" && (
          <p className="notice notice-ok">
            Released by the holder after {phase.afterMs} ms: it stopped its work and let go itself.
          </p>
        )}
        {phase.kind === "freed" && (
          <p className="notice notice-info">
            The lock no longer holds the value you saw (released, expired or taken over).{" "}
            {followUp ? followUp.text : "Waiting for the holder's release record…"}
          </p>
        )}
        {phase.kind === "past-deadline" && (
          <p className="notice notice-warn">
            The holder has not let go by the deadline
            {phase.followUp ? ` (${phase.followUp.text})` : ""}.
          </p>
        )}
      </div>
      {phase.kind === "waiting" && (
        // Outside the live region: a screen reader would read every tick.
        <p>
          Time left before the deadline:{" "}
          <span className="countdown" data-remaining-ms={phase.remainingMs}>
            {formatDurationMs(phase.remainingMs)}
          </span>
        </p>
      )}
      {phase.kind === "past-deadline" && (
        <div className="stack">
          <p>
            Force release replaces its value with a tombstone: nobody else gets it before the holder
            has stopped, at most until its current validity ends.
          </p>
          <p>
            <button type="button" className="danger" disabled={forcePending} onClick={onForce}>
              {forcePending ? "Releasing…" : "Force release"}
            </button>
          </p>
        </div>
      )}
    </section>
  );
}
