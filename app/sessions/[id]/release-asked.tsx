"use client";

import Link from "next/link";
import { formatDurationMs, formatTimestamp } from "@/components/ui/format";
import { useServerNow } from "@/hooks/use-server-now";
import type { HolderSessionReleaseResponse } from "@/lib/api";
import { ReleasePlanTable } from "./release-plan-table";

/**
 * After "Ask to release": what was asked, the one deadline counting down, then "Force release what
 * it still holds" (a tombstone per lock), as the lock page offers past a revoke's deadline.
 */
export function ReleaseAsked({
  asked,
  onForce,
  forcePending,
}: {
  asked: HolderSessionReleaseResponse;
  onForce: () => void;
  forcePending: boolean;
}) {
  const nowMs = useServerNow(100);
  const askedCount = asked.locks.filter((lock) => lock.outcome === "asked").length;
  const deadlineAt = asked.deadlineAt;
  const remainingMs = deadlineAt === null || nowMs === null ? 0 : Math.max(0, deadlineAt - nowMs);
  return (
    <section className="stack" aria-label="Ask to release">
      <p role="status" className="notice notice-info">
        Asked the session to release {askedCount} of {asked.locks.length} locks
        {deadlineAt !== null && ` by ${formatTimestamp(deadlineAt)}`}: each routine is told and lets
        go itself. <Link href="/audit?action=release-session">Audit entry</Link>{" "}
        <span className="muted">{asked.auditId}</span>
      </p>
      <ReleasePlanTable locks={asked.locks} label="Asked to release" />
      {remainingMs > 0 ? (
        <p>
          Time left before the deadline:{" "}
          <span className="countdown" data-remaining-ms={remainingMs}>
            {formatDurationMs(remainingMs)}
          </span>
        </p>
      ) : (
        <div className="stack">
          <p>
            Past the deadline, Force release replaces each lock it still holds with a tombstone:
            nobody else gets it before the holder has stopped, at most until its current validity
            ends. Locks it let go of are left as they are.
          </p>
          <p>
            <button type="button" className="danger" disabled={forcePending} onClick={onForce}>
              {forcePending ? "Releasing…" : "Force release what it still holds"}
            </button>
          </p>
        </div>
      )}
    </section>
  );
}
