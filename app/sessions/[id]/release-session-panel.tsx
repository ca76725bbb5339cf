"use client";

import Link from "next/link";
import { useState } from "react";
import { HolderState } from "@/components/locks/holder-state";
import { ErrorNotice } from "@/components/ui/error-notice";
import type { HolderSessionReleaseResponse } from "@/lib/api";
import { useReleaseHolderSession } from "../../_queries/lock-actions";
import { permissionOf } from "../../_queries/permissions";
import { useSession } from "../../_queries/session";
import { ReleaseAsked } from "./release-asked";
import { ReleasePlanTable } from "./release-plan-table";
import { ReleaseSessionForm, type ReleaseChoice } from "./release-session-form";

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
 * the session's liveness read fresh), then, with a reason and the locks' count typed, the same two
 * actions as the lock page: ask the session to release them (one deadline for all; force what it
 * still holds past it), or force release them anyway.
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
  const forceRest = useReleaseHolderSession(sessionId);
  const [reason, setReason] = useState("");
  if (login?.readOnly) return <p className="muted">Releasing is off: the console is read-only.</p>;
  if (!login?.canWrite)
    return (
      <p className="muted">
        <Link href="/login">Sign in</Link> to release everything this session holds.
      </p>
    );
  // Each lock's scope is the server's to check: it refuses the whole release, naming those outside.
  const releasing = permissionOf(login, "release-session", null);
  if (!releasing.allowed) return <p className="muted">{releasing.reason}</p>;

  const plan = preview.data;
  const first = release.data;
  const asked = first?.locks.some((lock) => lock.action === "ask") ? first : undefined;
  const done = forceRest.data ?? (asked ? undefined : first);
  const started = first !== undefined;
  const submit = (choice: ReleaseChoice) => {
    setReason(choice.reason);
    release.mutate(choice);
  };
  return (
    <div className="stack">
      {!started && (
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
      {plan && !started && (
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
            <ReleaseSessionForm
              lockCount={plan.locks.length}
              asksFirst={plan.locks.some((lock) => lock.action === "ask")}
              pending={release.isPending}
              error={release.error}
              onSubmit={submit}
            />
          )}
        </section>
      )}
      {asked && !done && (
        <ReleaseAsked
          asked={asked}
          forcePending={forceRest.isPending}
          onForce={() => forceRest.mutate({ reason, force: true })}
        />
      )}
      {forceRest.error && <ErrorNotice error={forceRest.error} title="Nothing was released" />}
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
