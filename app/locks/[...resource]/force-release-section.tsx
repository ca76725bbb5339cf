"use client";

import Link from "next/link";
import { useState } from "react";
import type {
  ForceReleaseRequest,
  HolderSession,
  LockRow,
  NoSessionChoice,
  RevokeRequest,
} from "@/lib/api";
import { useAudit } from "../../_queries/audit";
import { useForceRelease, useRevoke } from "../../_queries/lock-actions";
import { lockTarget, permissionOf, type Permission } from "../../_queries/permissions";
import { useSession } from "../../_queries/session";
import { ForceReleaseDialog } from "./force-release-dialog";
import { revokeFollowUp } from "./revoke-progress";

/** A key that is not valid UTF-8 is named by its exact bytes. */
const nameOf = (lock: LockRow) =>
  lock.resourceBase64 ? { resourceBase64: lock.resourceBase64 } : { resource: lock.resource };

function forceReleaseRequest(
  lock: LockRow,
  choice: {
    reason: string;
    force: boolean;
    noSession: NoSessionChoice | null;
    deleteNow: boolean;
    incident: string | null;
  },
): ForceReleaseRequest {
  const { reason, force, noSession, deleteNow } = choice;
  // The explicit delete-now only when the operator chose it by its own control (never the default).
  const disposal = {
    ...(deleteNow ? ({ disposal: "delete-now" } as const) : {}),
    ...(choice.incident ? { incident: choice.incident } : {}),
  };
  if (force || lock.value === null) return { ...nameOf(lock), force: true, reason, ...disposal };
  // A value shown cut (its whole size in valueLength) is compared by its digest on every node.
  const expected =
    lock.valueLength !== undefined && lock.valueDigest
      ? { valueDigest: lock.valueDigest }
      : { expectedValue: lock.value };
  return {
    ...nameOf(lock),
    ...expected,
    reason,
    ...(noSession ? { noSession } : {}),
    ...disposal,
  };
}

const refusal = (permission: Permission) => (permission.allowed ? null : permission.reason);

function revokeRequest(
  lock: LockRow & { value: string },
  ask: { reason: string; deadlineMs: number; incident: string | null },
): RevokeRequest {
  const { incident, ...rest } = ask;
  return { ...nameOf(lock), expectedValue: lock.value, ...rest, ...(incident ? { incident } : {}) };
}

/**
 * The force-release button (for a person whose role covers this lock; else why not) and its dialog, fed the lock as it was when opened, and
 * the lock as polled since (to tell when an asked holder has let go).
 */
export function ForceReleaseSection({
  lock,
  holderSession,
  label = "Force-release…",
}: {
  lock: LockRow | null;
  holderSession: HolderSession | null;
  /** The button's words: a semaphore's page names the permit each button releases. */
  label?: string;
}) {
  const { data: session } = useSession();
  const [seenLock, setSeenLock] = useState<LockRow | null>(null);
  const [seenHolder, setSeenHolder] = useState<HolderSession | null>(null);
  const forceRelease = useForceRelease();
  const revoke = useRevoke();
  const asked = revoke.data ?? null;
  const audit = useAudit(1_000, asked ? 1_000 : undefined);
  const entries = audit.data?.entries ?? [];
  const auditId = forceRelease.data?.auditId;
  const auditEntry = auditId ? (entries.find((entry) => entry.id === auditId) ?? null) : null;

  // The dialog outlives the lock: after a release the result stays on screen until closed.
  if (!lock && !seenLock) return null;
  if (session?.readOnly)
    return <p className="muted">Force-release is off: the console is read-only.</p>;
  if (!session?.canWrite) {
    return (
      <p className="muted">
        <Link href="/login">Sign in</Link> to force-release this lock.
      </p>
    );
  }
  const target = lockTarget((lock ?? seenLock)!);
  const forcing = permissionOf(session, "force-release", target);
  if (!forcing.allowed) return <p className="muted">{forcing.reason}</p>;

  const stillHeld = lock !== null && seenLock !== null && lock.value === seenLock.value;
  const close = () => {
    setSeenLock(null);
    forceRelease.reset();
    revoke.reset();
  };
  return (
    <>
      {lock && (
        <p>
          <button
            type="button"
            className="danger"
            onClick={() => {
              setSeenLock(lock);
              setSeenHolder(holderSession);
            }}
          >
            {label}
          </button>
        </p>
      )}
      {seenLock && (
        <ForceReleaseDialog
          lock={seenLock}
          // Liveness changes while the dialog is open: the latest read, while it is of the same holder.
          holderSession={stillHeld ? holderSession : seenHolder}
          pending={forceRelease.isPending}
          error={forceRelease.error}
          result={forceRelease.data ?? null}
          auditEntry={auditEntry}
          refusals={{
            ask: refusal(permissionOf(session, "revoke", target)),
            deleteNow: refusal(permissionOf(session, "force-delete", target)),
          }}
          onClose={close}
          onConfirm={(choice) => forceRelease.mutate(forceReleaseRequest(seenLock, choice))}
          onAsk={(request) => {
            const { value } = seenLock;
            if (value !== null) revoke.mutate(revokeRequest({ ...seenLock, value }, request));
          }}
          ask={{
            pending: revoke.isPending,
            error: revoke.error,
            response: asked,
            followUp: asked ? revokeFollowUp(entries, asked.auditId) : null,
            freed: !stillHeld,
          }}
        />
      )}
    </>
  );
}
