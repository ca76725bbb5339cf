"use client";

import { OwnerExtension } from "@/components/locks/owner-extension";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { ElapsedSince } from "@/components/locks/held-for";
import { HolderValue } from "@/components/locks/holder-value";
import { LockOwnerLabel, OwnerLabels } from "@/components/locks/lock-owner";
import { ErrorNotice } from "@/components/ui/error-notice";
import { formatTimestamp } from "@/components/ui/format";
import {
  MAX_REASON_LENGTH,
  MIN_REASON_LENGTH,
  type ForceReleaseResponse,
  type NoSessionChoice,
} from "@/lib/api/actions";
import type { HolderSession } from "@/lib/api/holder-session";
import type { AuditEntry } from "@/lib/api/audit";
import type { LockRow } from "@/lib/api/locks";
import { ForceReleasePreview, hasForeignValue } from "./force-release-preview";
import { ForceReleaseOutcomes, ForceReleaseResult } from "./force-release-result";
import styles from "./force-release-dialog.module.css";

export interface ForceReleaseDialogProps {
  /** The lock as the operator saw it when opening the dialog (what compare-and-delete compares to). */
  lock: LockRow;
  /** The holder's session as read with the lock; null when the read carried none. */
  holderSession: HolderSession | null;
  onConfirm: (choice: {
    reason: string;
    force: boolean;
    /** Set when the holder has no session: what the operator chose. */
    noSession: NoSessionChoice | null;
  }) => void;
  onClose: () => void;
  pending: boolean;
  error: (Error & { code?: string; details?: unknown }) | null;
  result: ForceReleaseResponse | null;
  auditEntry: AuditEntry | null;
}

function refusedOutcomes(error: ForceReleaseDialogProps["error"]): ForceReleaseResponse | null {
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
        Who loses it: <OwnerLabels labels={owner.labels} />
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

const HOLDER_STATE_TEXT: Record<HolderSession["state"], string> = {
  alive: "alive: its value is replaced by a tombstone that keeps everyone out until it has stopped",
  unresponsive:
    "unresponsive (paused, busy or cut off): a tombstone keeps everyone out until it acknowledges or its validity ends",
  gone: "gone (its process ended): the lock is deleted at once",
  unknown: "no session (another library): the console cannot tell whether it still runs",
};

/** The holder's liveness, and for a holder without a session, the operator's choice. */
function HolderLiveness({
  holderSession,
  noSession,
  onNoSession,
}: {
  holderSession: HolderSession;
  noSession: NoSessionChoice;
  onNoSession: (choice: NoSessionChoice) => void;
}) {
  return (
    <fieldset aria-label="Holder session">
      <p>Holder session: {HOLDER_STATE_TEXT[holderSession.state]}.</p>
      {holderSession.state === "unknown" && (
        <>
          <label className={styles.checkbox}>
            <input
              type="radio"
              name="no-session"
              checked={noSession === "release-now"}
              onChange={() => onNoSession("release-now")}
            />
            Release now, accepting that the holder may still act as the owner
          </label>
          <label className={styles.checkbox}>
            <input
              type="radio"
              name="no-session"
              checked={noSession === "hold-until-ttl"}
              onChange={() => onNoSession("hold-until-ttl")}
            />
            Hold until its TTL: nobody gets it before the holder&apos;s validity ends
          </label>
        </>
      )}
    </fieldset>
  );
}

/** Modal confirmation for deleting a lock on every node: shows the plan, asks for a reason. */
export function ForceReleaseDialog(props: ForceReleaseDialogProps) {
  const { lock, pending, error, result } = props;
  const dialogRef = useRef<HTMLDialogElement>(null);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const [reason, setReason] = useState("");
  // Without a majority value there is nothing to compare with: only "any value" is possible.
  const [force, setForce] = useState(lock.value === null);
  const [noSession, setNoSession] = useState<NoSessionChoice>("release-now");
  const { holderSession } = props;
  // A Redisson lock is deleted whatever its holder (its type cannot hold a tombstone).
  const asksNoSession =
    holderSession?.state === "unknown" && lock.format !== "redisson-hash" && !force;

  useEffect(() => {
    dialogRef.current?.showModal();
    // showModal focuses the first control (a Copy button); the reason is what the operator types.
    reasonRef.current?.focus();
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onConfirm({ reason: reason.trim(), force, noSession: asksNoSession ? noSession : null });
  };
  const refused = refusedOutcomes(error);
  const reasonTooShort = reason.trim().length < MIN_REASON_LENGTH;

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
            Deletes the lock on every node, even though its holder may still be working. Holder
            value <HolderValue value={lock.value} />
          </p>
          <HolderLoses lock={lock} />
          {lock.format === "redisson-hash" && (
            <p className="muted">
              A Redisson lock is deleted at once: it cannot be replaced by a tombstone (its
              holder&apos;s commands would fail on a string key).
            </p>
          )}
          {holderSession && !force && lock.format !== "redisson-hash" && (
            <HolderLiveness
              holderSession={holderSession}
              noSession={noSession}
              onNoSession={setNoSession}
            />
          )}
          <ForceReleasePreview nodes={lock.nodes} expectedValue={lock.value} force={force} />
          {!force && hasForeignValue(lock.nodes, lock.value) && (
            <p className="notice notice-warn">
              Some node holds another value: compare-and-delete will refuse and delete nothing. Tick
              “Delete any value” to remove whatever each node holds.
            </p>
          )}
          <label className={styles.checkbox}>
            <input
              type="checkbox"
              checked={force}
              disabled={lock.value === null}
              onChange={(event) => setForce(event.target.checked)}
            />
            Delete any value (skip compare-and-delete)
          </label>
          <label>
            Reason (recorded in the audit trail)
            <textarea
              ref={reasonRef}
              required
              rows={3}
              minLength={MIN_REASON_LENGTH}
              maxLength={MAX_REASON_LENGTH}
              value={reason}
              onChange={(event) => setReason(event.target.value)}
            />
          </label>
          {refused && (
            <div className="stack">
              <ErrorNotice error={error} title="Nothing was deleted" />
              <ForceReleaseOutcomes nodes={refused.nodes} label="Values found on the nodes" />
            </div>
          )}
          {error && !refused && <ErrorNotice error={error} title="Force-release failed" />}
          <div className={styles.actions}>
            <button type="button" onClick={props.onClose}>
              Cancel
            </button>
            <button type="submit" className="danger" disabled={pending || reasonTooShort}>
              {pending ? "Releasing…" : "Force-release"}
            </button>
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
