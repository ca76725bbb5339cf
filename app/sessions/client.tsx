"use client";

import Link from "next/link";
import { HeartbeatAgo, HolderState } from "@/components/locks/holder-state";
import { CoverageNotices } from "@/components/sessions/coverage-notices";
import { SessionName } from "@/components/sessions/session-name";
import { ErrorNotice } from "@/components/ui/error-notice";
import { formatTimestamp } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import type { HolderSessionSummary } from "@/lib/api";
import { useHolderSessions } from "../_queries/holder-sessions";

/** A session in trouble gets its fix beside its state. */
function SessionStateCell({ session }: { session: HolderSessionSummary }) {
  const inTrouble = session.state === "unresponsive" || session.state === "gone";
  return (
    <>
      <HolderState session={session} subject="session" />
      {inTrouble && session.locksTotal > 0 && (
        <div>
          <Link href={`/sessions/${session.id}#release`}>Release everything it holds…</Link>
        </div>
      )}
    </>
  );
}

function SessionsTable({ sessions }: { sessions: HolderSessionSummary[] }) {
  return (
    <PlainTable
      label="Holder sessions"
      columns={["Session", "State", "Last heartbeat", "Locks held", "Waits", "Started"]}
    >
      {sessions.map((session) => (
        <tr key={session.id}>
          <td className="wrap-anywhere">
            <SessionName id={session.id} labels={session.labels} />
          </td>
          <td>
            <SessionStateCell session={session} />
          </td>
          <td className="nowrap">
            <HeartbeatAgo lastSeenAt={session.lastSeenAt} />
          </td>
          <td>{session.locksTotal}</td>
          <td>{session.waits.length}</td>
          <td className="nowrap">
            {session.startedAt === null ? "—" : formatTimestamp(session.startedAt)}
          </td>
        </tr>
      ))}
    </PlainTable>
  );
}

/** Every live holder session: the processes holding or waiting for locks, and their liveness. */
export function HolderSessionsClient() {
  const { data, error } = useHolderSessions();
  return (
    <div className="stack">
      <h1>Holder sessions</h1>
      <p className="muted">
        Each process using the lock library has a session: a heartbeat on the lock nodes, which
        tells whether it is alive, unresponsive (paused, GC or a blocked event loop) or gone.
        Processes of other libraries, or with <code>session: false</code>, have none and are not
        listed. (Not your sign-in to this console.)
      </p>
      {error && <ErrorNotice error={error} title="Holder sessions unavailable" />}
      {!data && !error && <p className="muted">Loading holder sessions…</p>}
      {data && <CoverageNotices coverage={data.coverage} truncated={data.truncated} />}
      {data && data.sessions.length === 0 && (
        <p className="notice notice-info">
          No holder session is live: nothing holds a lock with one.
        </p>
      )}
      {data && data.sessions.length > 0 && <SessionsTable sessions={data.sessions} />}
    </div>
  );
}
