"use client";

import { OwnerExtension } from "@/components/locks/owner-extension";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { ElapsedSince } from "@/components/locks/held-for";
import { HolderValue } from "@/components/locks/holder-value";
import { LockOwnerLabel, OwnerLabels } from "@/components/locks/lock-owner";
import { ErrorNotice } from "@/components/ui/error-notice";
import { formatTimestamp } from "@/components/ui/format";
import {
  DEFAULT_REVOKE_DEADLINE_MS,
  MAX_REASON_LENGTH,
  MIN_REASON_LENGTH,
  type ForceReleaseResponse,
  type NoSessionChoice as Choice,
  type RevokeResponse,
} from "@/lib/api/actions";
import type { HolderSession } from "@/lib/api/holder-session";
import type { AuditEntry } from "@/lib/api/audit";
import type { LockRow } from "@/lib/api/locks";
import { AskProgress, DeadlineField, deadlineMsOf } from "./ask-to-release";
import { forceReleasePlan, plannedDisposal } from "./force-release-plan";
import { ForceReleasePreview, hasForeignValue } from "./force-release-preview";
import { ForceReleaseOutcomes, ForceReleaseResult } from "./force-release-result";
import { HolderLivenessNotice } from "./holder-liveness-notice";
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
  }) => void;
  onAsk: (request: { reason: string; deadlineMs: number }) => void;
  ask: AskState;
  onClose: () => void;
  pending: boolean;
  error: ApiErrorLike;
  result: ForceReleaseResponse | null;
  auditEntry: AuditEntry | null;
}

function refusedOutcomes(error: ApiErrorLike): ForceReleaseResponse | null {
  if (error?.code !== "value_changed") return null;
  const details = error.details as Partial<ForceReleaseResponse> | undefined;
  return Array.isArray(details?.nodes) ? (details as ForceReleaseResponse) : null;
}

/** Who loses the lock, and since when they held it, as the operator saw it when opening the dialog. */
function HolderLoses({ lock }: { lock: LockRow }) {
  const { owner } = lock;
  if (owner.kind === "unknown") {
    return (
      <p aria-label="Who loses the lock">
        Who loses it: <LockOwnerLabel owner={owner} />{" "}
        <span className="muted">(no owner entry: held since an unknown time)</span>
      </p>
    );
  }
  return (
    <div className="notice notice-warn" aria-label="Who loses the lock">
      <p>
        Who loses it: <OwnerLabels labels={owner.labels} truncated={owner.truncatedLabels} />
      </p>
      <p>
        Holding it since {formatTimestamp(owner.acquiredAt)} (for{" "}
        <ElapsedSince sinceMs={owner.acquiredAt} />
        )<OwnerExtension owner={owner} prefix=", " />
        {lock.waiters.count > 0 && `; ${lock.waiters.count} waiting for it`}.
      </p>
    </div>
  );
}

/**
 * Modal for taking a lock from its holder. By the holder's session: alive or unresponsive → "Ask
 * to release" first, with a deadline, and Force release (a tombstone) past it; gone → released at
 * once; no session → the operator chooses, nothing preselected. Asks for a reason either way.
 */
export function ForceReleaseDialog(props: ForceReleaseDialogProps) {
  const { lock, holderSession, pending, error, result, ask } = props;
  const dialogRef = useRef<HTMLDialogElement>(null);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const [reason, setReason] = useState("");
  const [force, setForce] = useState(lock.value === null);
  const [noSession, setNoSession] = useState<Choice | null>(null);
  const [deadlineS, setDeadlineS] = useState(String(DEFAULT_REVOKE_DEADLINE_MS / 1_000));
  const asked = ask.response;
  const plan = asked
    ? ({ kind: "ask-first" } as const) // once asked, the flow stays ask-then-force
    : forceReleasePlan({
        lock,
        holderSession,
        force,
        revokeRefusedNoSession: ask.error?.code === "no_session",
      });

  useEffect(() => {
    dialogRef.current?.showModal();
    // showModal focuses the first control (a Copy button); the reason is what the operator types.
    reasonRef.current?.focus();
  }, []);

  const confirmForce = () =>
    props.onConfirm({
      reason: reason.trim(),
      force,
      noSession: plan.kind === "choose" ? noSession : null,
    });
  const deadlineMs = deadlineMsOf(deadlineS);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (plan.kind !== "ask-first") confirmForce();
    else if (!asked && deadlineMs !== null) props.onAsk({ reason: reason.trim(), deadlineMs });
    // Once asked, Force release is its own button, offered past the deadline.
  };
  const refused = refusedOutcomes(error);
  const reasonTooShort = reason.trim().length < MIN_REASON_LENGTH;
  const choiceMissing = plan.kind === "choose" && noSession === null;

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
      <h2 id="force-release-title">Force-release {lock.resource}</h2>
      {result ? (
        <ForceReleaseResult result={result} auditEntry={props.auditEntry} />
      ) : (
        <form className="stack" onSubmit={submit}>
          <p>
            Takes the lock from its holder on every node. Holder value{" "}
            <HolderValue value={lock.value} />
          </p>
          <HolderLoses lock={lock} />
          <HolderLivenessNotice plan={plan} holderSession={holderSession} asked={asked !== null} />
          {plan.kind === "choose" && <NoSessionChoice value={noSession} onChange={setNoSession} />}
          {!asked && (
            <ForceReleasePreview
              nodes={lock.nodes}
              expectedValue={lock.value}
              force={force}
              disposal={plannedDisposal(plan, noSession)}
            />
          )}
          {!asked && !force && hasForeignValue(lock.nodes, lock.value) && (
            <p className="notice notice-warn">
              Some node holds another value: compare-and-delete will refuse and delete nothing. Tick
              “Delete any value” to remove whatever each node holds.
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
              Delete any value (skip compare-and-delete)
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
          {plan.kind === "ask-first" && (
            <DeadlineField
              seconds={deadlineS}
              onChange={setDeadlineS}
              disabled={asked !== null || ask.pending}
            />
          )}
          {plan.kind === "ask-first" && asked && (
            <AskProgress
              asked={asked}
              followUp={ask.followUp}
              freed={ask.freed}
              onForce={confirmForce}
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
              <ErrorNotice error={error} title="Nothing was deleted" />
              <ForceReleaseOutcomes nodes={refused.nodes} label="Values found on the nodes" />
            </div>
          )}
          {error && !refused && <ErrorNotice error={error} title="Force-release failed" />}
          <div className={styles.actions}>
            <button type="button" onClick={props.onClose}>
              {asked ? "Close" : "Cancel"}
            </button>
            {plan.kind === "ask-first" && !asked && (
              <button
                type="submit"
                className="primary"
                disabled={ask.pending || reasonTooShort || deadlineMs === null}
              >
                {ask.pending ? "Asking…" : "Ask to release"}
              </button>
            )}
            {plan.kind !== "ask-first" && (
              <button
                type="submit"
                className="danger"
                disabled={pending || reasonTooShort || choiceMissing}
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
