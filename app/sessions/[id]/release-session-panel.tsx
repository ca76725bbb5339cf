"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import { HolderState } from "@/components/locks/holder-state";
import { ErrorNotice } from "@/components/ui/error-notice";
import { MAX_REASON_LENGTH, MIN_REASON_LENGTH } from "@/lib/api/actions";
import type { HolderSessionReleaseResponse } from "@/lib/api/holder-sessions";
import { useReleaseHolderSession } from "../../_queries/lock-actions";
import { useSession } from "../../_queries/session";
import { ReleasePlanTable } from "./release-plan-table";

/** A preview writes nothing and is not audited, but the API asks every release for a reason. */
const PREVIEW_REASON = "preview";

/** What a preview or a release could not cover, in words. */
function ReleaseNotes({ release }: { release: HolderSessionReleaseResponse }) {
  return (
    <>
      {release.alreadyReleasing > 0 && (
        <p className="muted">
          {release.alreadyReleasing} of its locks are already being released (tombstones): left as
          they are.
        </p>
      )}
      {release.remaining > 0 && (
        <p className="notice notice-warn">
          {release.remaining} more locks are left for another release (one release acts on at most{" "}
          {release.locks.length}).
        </p>
      )}
      {!release.indexComplete && (
        <p className="notice notice-info">
          The console is still listing a node: a lock it has not seen yet is not included.
        </p>
      )}
      {release.unreachableNodes.length > 0 && (
        <p className="notice notice-warn">
          {release.unreachableNodes.join(", ")} did not answer: their copies are left as they are.
        </p>
      )}
    </>
  );
}

/**
 * "Release everything this session holds": a preview first (what would be done to each lock, by
 * the session's liveness read fresh), then, with a reason, the release and each lock's outcome.
 */
export function ReleaseSessionPanel({
  sessionId,
  lastSeenAt,
}: {
  sessionId: string;
  /** The session's freshest heartbeat, to say its state with the preview's liveness. */
  lastSeenAt: number | null;
}) {
  const { data: login } = useSession();
  const preview = useReleaseHolderSession(sessionId);
  const release = useReleaseHolderSession(sessionId);
  const [reason, setReason] = useState("");
  if (login?.readOnly) return <p className="muted">Releasing is off: the console is read-only.</p>;
  if (!login?.canWrite)
    return (
      <p className="muted">
        <Link href="/login">Log in as admin</Link> to release everything this session holds.
      </p>
    );

  const plan = preview.data;
  const done = release.data;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    release.mutate({ reason: reason.trim() });
  };
  return (
    <div className="stack">
      {!done && (
        <p>
          <button
            type="button"
            disabled={preview.isPending}
            onClick={() => preview.mutate({ reason: PREVIEW_REASON, preview: true })}
          >
            {preview.isPending ? "Reading…" : plan ? "Preview again" : "Preview the release"}
          </button>
        </p>
      )}
      {preview.error && <ErrorNotice error={preview.error} title="No preview" />}
      {plan && !done && (
        <section className="stack" aria-label="Release preview">
          <p>
            Nothing has been changed yet. The session is{" "}
            <HolderState session={{ state: plan.holderState, lastSeenAt }} subject="session" />
            {plan.locks.length === 0
              ? "."
              : `; ${plan.locks.length === 1 ? "its lock" : `its ${plan.locks.length} locks`} would be:`}
          </p>
          {plan.locks.length === 0 ? (
            <p className="notice notice-info">It holds nothing to release.</p>
          ) : (
            <ReleasePlanTable locks={plan.locks} label="Locks to release" />
          )}
          <ReleaseNotes release={plan} />
          {plan.locks.length > 0 && (
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
              {release.error && <ErrorNotice error={release.error} title="Nothing was released" />}
              <p>
                <button
                  type="submit"
                  className="danger"
                  disabled={release.isPending || reason.trim().length < MIN_REASON_LENGTH}
                >
                  {release.isPending ? "Releasing…" : "Release everything"}
                </button>
              </p>
            </form>
          )}
        </section>
      )}
      {done && (
        <section className="stack" aria-label="Release result">
          <p role="status" className="notice notice-ok">
            Released {done.locks.filter((lock) => lock.outcome === "released").length} of{" "}
            {done.locks.length} locks of this session (the session was {done.holderState} when
            read). <Link href="/audit?action=release-session">Audit entry</Link>{" "}
            <span className="muted">{done.auditId}</span>
          </p>
          <ReleasePlanTable locks={done.locks} label="Release result" />
          <ReleaseNotes release={done} />
        </section>
      )}
    </div>
  );
}
