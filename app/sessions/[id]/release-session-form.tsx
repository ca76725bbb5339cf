"use client";

import { useState, type FormEvent } from "react";
import { IncidentField, incidentOf } from "@/components/locks/incident-field";
import { ErrorNotice } from "@/components/ui/error-notice";
import { DEFAULT_REVOKE_DEADLINE_MS, MAX_REASON_LENGTH, MIN_REASON_LENGTH } from "@/lib/api";
import { DeadlineField, deadlineMsOf } from "../../locks/[...resource]/ask-to-release";

export interface ReleaseChoice {
  reason: string;
  force: boolean;
  deadlineMs?: number;
  incident?: string;
}

/**
 * The confirmation of a session's release: a reason, the deadline when the session is asked first
 * (as on the lock page), and, over several locks, their count typed. Two visible actions when the
 * session can be asked: "Ask to release" and "Force release anyway".
 */
export function ReleaseSessionForm({
  lockCount,
  asksFirst,
  pending,
  error,
  onSubmit,
}: {
  lockCount: number;
  /** The preview plans to ask (the session is not gone). */
  asksFirst: boolean;
  pending: boolean;
  error: Error | null;
  onSubmit: (choice: ReleaseChoice) => void;
}) {
  const [reason, setReason] = useState("");
  const [incident, setIncident] = useState("");
  const [deadlineS, setDeadlineS] = useState(String(DEFAULT_REVOKE_DEADLINE_MS / 1_000));
  const [typedCount, setTypedCount] = useState("");
  const deadlineMs = deadlineMsOf(deadlineS);
  const countConfirmed = lockCount <= 1 || typedCount.trim() === String(lockCount);
  const ready = !pending && reason.trim().length >= MIN_REASON_LENGTH && countConfirmed;
  const force = () => onSubmit({ reason: reason.trim(), force: true, ...incidentOf(incident) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!ready) return;
    if (!asksFirst) force();
    else if (deadlineMs !== null)
      onSubmit({ reason: reason.trim(), force: false, deadlineMs, ...incidentOf(incident) });
  };
  return (
    <form className="stack" onSubmit={submit}>
      <label>
        Reason (recorded in the audit trail)
        <textarea
          required
          rows={2}
          minLength={MIN_REASON_LENGTH}
          maxLength={MAX_REASON_LENGTH}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
      </label>
      <IncidentField value={incident} onChange={setIncident} readOnly={pending} />
      {asksFirst && (
        <DeadlineField seconds={deadlineS} onChange={setDeadlineS} disabled={pending} />
      )}
      {lockCount > 1 && (
        <label>
          Type the number of locks ({lockCount}) to confirm
          <input
            inputMode="numeric"
            autoComplete="off"
            value={typedCount}
            onChange={(event) => setTypedCount(event.target.value)}
          />
        </label>
      )}
      {error && <ErrorNotice error={error} title="Nothing was released" />}
      <p className="row">
        {asksFirst ? (
          <>
            <button type="submit" className="primary" disabled={!ready || deadlineMs === null}>
              {pending ? "Asking…" : `Ask to release ${lockCount === 1 ? "it" : "them"}`}
            </button>{" "}
            <button type="button" className="danger" disabled={!ready} onClick={force}>
              Force release anyway
            </button>
          </>
        ) : (
          <button type="submit" className="danger" disabled={!ready}>
            {pending ? "Releasing…" : "Force release"}
          </button>
        )}
      </p>
    </form>
  );
}
