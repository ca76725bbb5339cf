"use client";

import Link from "next/link";
import { useState } from "react";
import type { ForceReleaseRequest, NoSessionChoice } from "@/lib/api/actions";
import type { HolderSession } from "@/lib/api/holder-session";
import type { LockRow } from "@/lib/api/locks";
import { useAudit } from "../../_queries/audit";
import { useForceRelease } from "../../_queries/lock-actions";
import { useSession } from "../../_queries/session";
import { ForceReleaseDialog } from "./force-release-dialog";

function forceReleaseRequest(
  lock: LockRow,
  choice: { reason: string; force: boolean; noSession: NoSessionChoice | null },
): ForceReleaseRequest {
  const { reason, force, noSession } = choice;
  // A key that is not valid UTF-8 is named by its exact bytes.
  const name = lock.resourceBase64
    ? { resourceBase64: lock.resourceBase64 }
    : { resource: lock.resource };
  if (force || lock.value === null) return { ...name, force: true, reason };
  return { ...name, expectedValue: lock.value, reason, ...(noSession ? { noSession } : {}) };
}

/** The force-release button (admins only) and its dialog, fed the lock as it was when opened. */
export function ForceReleaseSection({
  lock,
  holderSession,
}: {
  lock: LockRow | null;
  holderSession: HolderSession | null;
}) {
  const { data: session } = useSession();
  const [seenLock, setSeenLock] = useState<LockRow | null>(null);
  const [seenHolder, setSeenHolder] = useState<HolderSession | null>(null);
  const forceRelease = useForceRelease();
  const audit = useAudit(1_000);
  const auditId = forceRelease.data?.auditId;
  const auditEntry = auditId
    ? (audit.data?.entries.find((entry) => entry.id === auditId) ?? null)
    : null;

  // The dialog outlives the lock: after a release the result stays on screen until closed.
  if (!lock && !seenLock) return null;
  if (session?.readOnly)
    return <p className="muted">Force-release is off: the console is read-only.</p>;
  if (!session?.canWrite) {
    return (
      <p className="muted">
        <Link href="/login">Log in as admin</Link> to force-release this lock.
      </p>
    );
  }

  const close = () => {
    setSeenLock(null);
    forceRelease.reset();
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
            Force-release…
          </button>
        </p>
      )}
      {seenLock && (
        <ForceReleaseDialog
          lock={seenLock}
          holderSession={seenHolder}
          pending={forceRelease.isPending}
          error={forceRelease.error}
          result={forceRelease.data ?? null}
          auditEntry={auditEntry}
          onClose={close}
          onConfirm={(choice) => forceRelease.mutate(forceReleaseRequest(seenLock, choice))}
        />
      )}
    </>
  );
}
