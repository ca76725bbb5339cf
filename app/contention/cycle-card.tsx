"use client";

import Link from "next/link";
import { Fragment, useState } from "react";
import { lockHref } from "@/components/locks/lock-href";
import { cycleSteps, participantPhrase } from "@/components/contention/describe";
import { ErrorNotice } from "@/components/ui/error-notice";
import { formatTimestamp } from "@/components/ui/format";
import type { ContentionCycle, ContentionParticipant } from "@/lib/api";
import { useRevoke } from "../_queries/lock-actions";
import { permissionOf } from "../_queries/permissions";
import { useSession } from "../_queries/session";

interface CycleCardProps {
  cycle: ContentionCycle;
  participants: Readonly<Record<string, ContentionParticipant>>;
}

/** The lock `session` holds in the cycle (the one its predecessor waits for), with its value. */
function heldInCycle(cycle: ContentionCycle, step: number, participant?: ContentionParticipant) {
  const count = cycle.sessions.length;
  const resource = cycle.resources[(step + count - 1) % count]!;
  const value = participant?.holds.find((hold) => hold.resource === resource)?.value;
  return value === undefined ? null : { resource, value };
}

/**
 * One deadlock cycle: each member's step in words, and (for an admin) the fix beside it: revoke one
 * member, i.e. ask it to release the lock it holds in the cycle (the same revoke as the lock page's
 * "Ask to release"); its library also cancels the waits it began while holding that lock.
 */
export function CycleCard({ cycle, participants }: CycleCardProps) {
  const login = useSession().data;
  const revoking = permissionOf(login, "revoke", null);
  const canWrite = revoking.allowed;
  // Each member's lock by its holder's service: only the revokes this person's scope covers.
  const mayRevoke = (resource: string, service: string | undefined) =>
    permissionOf(login, "revoke", { resource, service: service ?? null }).allowed;
  const revoke = useRevoke();
  const [reason, setReason] = useState("Break a deadlock cycle seen on the Contention page");
  const steps = cycleSteps(cycle, participants);
  return (
    <section
      className="card stack"
      aria-label={`Deadlock cycle of ${cycle.sessions.length} sessions`}
    >
      <p className="notice notice-warn">
        Deadlock: {cycle.sessions.length} sessions each hold a lock the next one waits for, on{" "}
        {cycle.resources.map((resource, index) => (
          <Fragment key={resource}>
            {index > 0 && ", "}
            <Link href={lockHref(resource)}>{resource}</Link>
          </Fragment>
        ))}
        . Seen since {formatTimestamp(cycle.firstSeenAt)}; Redlock contenders give up and retry, so
        it dissolves and re-forms until one member lets go.
      </p>
      <ol>
        {cycle.sessions.map((session, step) => {
          const held = heldInCycle(cycle, step, participants[session]);
          return (
            <li key={session}>
              {steps[step]}{" "}
              {held &&
                !session.includes(":") &&
                mayRevoke(held.resource, participants[session]?.labels.service) && (
                  <button
                    type="button"
                    className="danger"
                    disabled={revoke.isPending || reason.trim().length < 3}
                    onClick={() =>
                      revoke.mutate({ resource: held.resource, expectedValue: held.value, reason })
                    }
                  >
                    Revoke {participantPhrase(session, participants[session]?.labels)}: ask it to
                    release {held.resource}
                  </button>
                )}
            </li>
          );
        })}
      </ol>
      {canWrite ? (
        <label>
          Reason for the revoke (audited)
          <input value={reason} onChange={(event) => setReason(event.target.value)} />
        </label>
      ) : (
        <p className="muted">
          {!revoking.allowed && login?.canWrite
            ? revoking.reason
            : "Sign in to revoke one member and break the cycle."}
        </p>
      )}
      {revoke.error && <ErrorNotice error={revoke.error} title="The revoke was not sent" />}
      {revoke.data && (
        <p className="notice notice-ok" role="status">
          Asked session {revoke.data.sessionId.slice(0, 8)} to release {revoke.data.resource} (audit{" "}
          {revoke.data.auditId.slice(0, 8)}): it has until {formatTimestamp(revoke.data.deadlineAt)}
          , and its waits begun while holding it are cancelled.
        </p>
      )}
    </section>
  );
}
