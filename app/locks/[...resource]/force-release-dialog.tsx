"use client";

/**
 * Over 300 lines, one job: the force-release dialog, every state of it in words (asking, the
 * countdown, forcing, refused, done) and the incident and reason fields issue 42 added.
 */

import { useEffect, useRef, useState, type FormEvent } from "react";
import { HolderValue } from "@/components/locks/holder-value";
import { IncidentField } from "@/components/locks/incident-field";
import { ErrorNotice } from "@/components/ui/error-notice";
import {
  MAX_REASON_LENGTH,
  MIN_REASON_LENGTH,
  type ForceReleaseResponse,
  type NoSessionChoice as Choice,
  type RevokeResponse,
} from "@/lib/api";
import type { AuditEntry, HolderSession, LockRow } from "@/lib/api";
import { AskProgress, DeadlineField, deadlineMsOf } from "./ask-to-release";
import { DeleteNowControl } from "./delete-now-control";
import { defaultDeadlineS, dialogActions, failureTitle, onlyWayOf } from "./dialog-actions";
import {
  forceReleasePlan,
  plannedDisposal,
  plannedReservationMs,
  unlockDecision,
} from "./force-release-plan";
import { ForceReleasePreview, hasForeignValue } from "./force-release-preview";
import { ForceReleaseOutcomes, ForceReleaseResult } from "./force-release-result";
import { HolderLivenessNotice } from "./holder-liveness-notice";
import { HolderLoses } from "./holder-loses";
import { NoSessionChoice } from "./no-session-choice";
import type { RevokeFollowUp } from "./revoke-progress";
import styles from "./force-release-dialog.module.css";

type ApiErrorLike = (Error & { code?: string; details?: unknown }) | null;

/** "Ask to release" (revoke) as the section runs it. */
export interface AskState {
  pending: boolean;
  error: ApiErrorLike;
  /** The revoke's 202; null before asking. */
  response: RevokeResponse | null;
  /** Its follow-up audit entry, once written. */
  followUp: RevokeFollowUp | null;
  /** The polled lock no longer holds the value the operator saw. */
  freed: boolean;
}

export interface ForceReleaseDialogProps {
  /** The lock as the operator saw it when opening the dialog (what compare-and-delete compares to). */
  lock: LockRow;
  /** The holder's session as read with the lock; null when the read carried none. */
  holderSession: HolderSession | null;
  onConfirm: (choice: {
    reason: string;
    force: boolean;
    /** Set when the holder has no session: what the operator chose. */
    noSession: Choice | null;
    /** The explicit delete-now (disposal "delete-now"), chosen by its own control. */
    deleteNow: boolean;
    /** The incident link for the audit entry; null when none was given. */
    incident: string | null;
  }) => void;
  onAsk: (request: { reason: string; deadlineMs: number; incident: string | null }) => void;
  ask: AskState;
  onClose: () => void;
  pending: boolean;
  error: ApiErrorLike;
  result: ForceReleaseResponse | null;
  auditEntry: AuditEntry | null;
  /** Why asking (revoke) or the delete-now is not offered to this person; null when it is. */
  refusals: { ask: string | null; deleteNow: string | null };
}

function refusedOutcomes(error: ApiErrorLike): ForceReleaseResponse | null {
  if (error?.code !== "value_changed") return null;
  const details = error.details as Partial<ForceReleaseResponse> | undefined;
  return Array.isArray(details?.nodes) ? (details as ForceReleaseResponse) : null;
}

/**
 * Modal for taking a lock from its holder, titled by what it does (lib/api/unlock-rule.ts decides
 * through force-release-plan.ts): a holder that may answer → "Ask to release" (with a deadline)
 * and "Force release" (a tombstone) side by side; a holder that cannot → Force release, its cost
 * said before the click; no session → the operator chooses, nothing preselected. The explicit
 * delete-now is its own control. Asks for a reason either way.
 */
export function ForceReleaseDialog(props: ForceReleaseDialogProps) {
  const { lock, holderSession, pending, error, result, ask } = props;
  const dialogRef = useRef<HTMLDialogElement>(null);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const [reason, setReason] = useState("");
  const [incident, setIncident] = useState("");
  const incidentLink = incident.trim() || null;
  const [force, setForce] = useState(lock.value === null);
  const [noSession, setNoSession] = useState<Choice | null>(null);
  // The row's validity was read about when the dialog opened: the words count from then.
  const [openedAtMs] = useState(() => Date.now());
  const reservedForMs = plannedReservationMs(lock);
  const [deadlineS, setDeadlineS] = useState(() =>
    String(defaultDeadlineS(holderSession?.state ?? null, reservedForMs)),
  );
  const asked = ask.response;
  const planInput = {
    lock,
    holderSession,
    force,
    revokeRefusedNoSession: ask.error?.code === "no_session",
  };
  const plan = asked
    ? ({ kind: "ask-first" } as const) // once asked, the flow stays ask-then-force
    : forceReleasePlan(planInput);
  const offered = dialogActions({
    resource: lock.resource,
    plan,
    liveness: holderSession?.state ?? null,
    asked: asked !== null,
  });
  // Only what this person's role covers is offered; the rest is said below the form.
  const { refusals } = props;
  const canAsk = offered.askOffered && refusals.ask === null;
  const actions = {
    ...offered,
    askOffered: canAsk,
    primary: canAsk || asked ? offered.primary : ("force" as const),
    deleteNowOffered: offered.deleteNowOffered && refusals.deleteNow === null,
  };
  const absent = [
    offered.askOffered && !canAsk ? refusals.ask : null,
    // A holder without a session: its "release now" choice is that very delete.
    (offered.deleteNowOffered || plan.kind === "choose") && refusals.deleteNow !== null
      ? refusals.deleteNow
      : null,
  ].filter((reason) => reason !== null);
  const decide = (deleteNow: boolean) =>
    unlockDecision(planInput, { noSession, deleteNow }, reservedForMs, openedAtMs);

  useEffect(() => {
    dialogRef.current?.showModal();
    // showModal focuses the first control (a Copy button); the reason is what the operator types.
    reasonRef.current?.focus();
  }, []);

  const confirm = (deleteNow: boolean) =>
    props.onConfirm({
      reason: reason.trim(),
      force,
      noSession: plan.kind === "choose" ? noSession : null,
      deleteNow,
      incident: incidentLink,
    });
  const deadlineMs = deadlineMsOf(deadlineS);
  const askHolder = () => {
    if (!asked && deadlineMs !== null)
      props.onAsk({ reason: reason.trim(), deadlineMs, incident: incidentLink });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (actions.primary === "ask") askHolder();
    else if (!actions.forceNeedsDeleteNow) confirm(false);
  };
  const refused = refusedOutcomes(error);
  const reasonTooShort = reason.trim().length < MIN_REASON_LENGTH;
  const choiceMissing = plan.kind === "choose" && noSession === null;
  const untilMs = reservedForMs === null ? null : openedAtMs + reservedForMs;

  return (
    <dialog
      ref={dialogRef}
      className={styles.dialog}
      aria-labelledby="force-release-title"
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      <h2 id="force-release-title">{actions.title}</h2>
      {result ? (
        <ForceReleaseResult
          result={result}
          auditEntry={props.auditEntry}
          onDeleteNow={() => confirm(true)}
          deletePending={pending}
        />
      ) : (
        <form className="stack" onSubmit={submit}>
          <p>
            Takes the lock from its holder on every node. Holder value{" "}
            <HolderValue value={lock.value} />
          </p>
          <HolderLoses lock={lock} holderSession={holderSession} />
          <HolderLivenessNotice
            plan={plan}
            holderSession={holderSession}
            askWords={asked ? null : actions.askWords}
          />
          {plan.kind === "choose" && <NoSessionChoice value={noSession} onChange={setNoSession} />}
          {!asked && (
            <ForceReleasePreview
              nodes={lock.nodes}
              expectedValue={lock.value}
              force={force}
              disposal={plannedDisposal(planInput, noSession)}
              words={decide(false).words}
            />
          )}
          {!asked && !force && hasForeignValue(lock.nodes, lock.value) && (
            <p className="notice notice-warn">
              Some node holds another value: the compare will refuse and write nothing. Tick “Any
              value” to reserve whatever each node holds.
            </p>
          )}
          {!asked && (
            <label className={styles.checkbox}>
              <input
                type="checkbox"
                checked={force}
                disabled={lock.value === null}
                onChange={(event) => setForce(event.target.checked)}
              />
              Any value (skip the compare: each node&apos;s value is tombstoned)
            </label>
          )}
          <label>
            Reason (recorded in the audit trail)
            <textarea
              ref={reasonRef}
              required
              rows={3}
              minLength={MIN_REASON_LENGTH}
              maxLength={MAX_REASON_LENGTH}
              readOnly={asked !== null}
              value={reason}
              onChange={(event) => setReason(event.target.value)}
            />
          </label>
          <IncidentField value={incident} onChange={setIncident} readOnly={asked !== null} />
          {actions.askOffered && (
            <DeadlineField
              seconds={deadlineS}
              onChange={setDeadlineS}
              disabled={asked !== null || ask.pending}
            />
          )}
          {asked && (
            <AskProgress
              asked={asked}
              followUp={ask.followUp}
              freed={ask.freed}
              onForce={() => confirm(false)}
              forcePending={pending}
            />
          )}
          {ask.error && (
            <ErrorNotice
              error={ask.error}
              title={
                ask.error.code === "no_session"
                  ? "The holder cannot be asked"
                  : "The holder was not asked"
              }
            />
          )}
          {refused && (
            <div className="stack">
              <ErrorNotice error={error} title="Nothing was written" />
              <ForceReleaseOutcomes nodes={refused.nodes} label="Values found on the nodes" />
            </div>
          )}
          {error && !refused && <ErrorNotice error={error} title={failureTitle(error.code)} />}
          {!asked && actions.deleteNowOffered && (
            <DeleteNowControl
              words={decide(true).words}
              untilMs={untilMs}
              onlyWay={onlyWayOf(plan)}
              disabled={reasonTooShort}
              pending={pending}
              onDelete={() => confirm(true)}
            />
          )}
          {absent.map((reason) => (
            <p key={reason} className="muted">
              {reason}
            </p>
          ))}
          <div className={styles.actions}>
            <button type="button" onClick={props.onClose}>
              {asked ? "Close" : "Cancel"}
            </button>
            {actions.askOffered && !asked && (
              <button
                type={actions.primary === "ask" ? "submit" : "button"}
                className={actions.primary === "ask" ? "primary" : undefined}
                disabled={ask.pending || reasonTooShort || deadlineMs === null}
                onClick={actions.primary === "ask" ? undefined : askHolder}
              >
                {ask.pending ? "Asking…" : "Ask to release"}
              </button>
            )}
            {!asked && (
              <button
                type={actions.primary === "force" ? "submit" : "button"}
                className="danger"
                disabled={pending || reasonTooShort || choiceMissing || actions.forceNeedsDeleteNow}
                onClick={actions.primary === "force" ? undefined : () => confirm(false)}
              >
                {pending ? "Releasing…" : "Force release"}
              </button>
            )}
          </div>
        </form>
      )}
      {result && (
        <div className={styles.actions}>
          <button type="button" autoFocus onClick={props.onClose}>
            Close
          </button>
        </div>
      )}
    </dialog>
  );
}
