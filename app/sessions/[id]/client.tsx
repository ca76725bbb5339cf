"use client";

import Link from "next/link";
import { HeartbeatAgo, HolderState } from "@/components/locks/holder-state";
import { OwnerLabels } from "@/components/locks/lock-owner";
import { CoverageNotices } from "@/components/sessions/coverage-notices";
import { ErrorNotice } from "@/components/ui/error-notice";
import { formatTimestamp } from "@/components/ui/format";
import type { HolderSessionSummary } from "@/lib/api";
import { useHolderSession } from "../../_queries/holder-session";
import { ReleaseSessionPanel } from "./release-session-panel";
import { SessionLocksTable, SessionWaitsTable } from "./session-locks-table";
import styles from "./session.module.css";

function SessionSummary({ session }: { session: HolderSessionSummary }) {
  return (
    <dl className={styles.summary}>
      <dt>State</dt>
      <dd>
        <HolderState session={session} subject="session" />
      </dd>
      <dt>Last heartbeat</dt>
      <dd>
        <HeartbeatAgo lastSeenAt={session.lastSeenAt} />
      </dd>
      <dt>Labels</dt>
      <dd>
        <OwnerLabels labels={session.labels} />
      </dd>
      <dt>Started</dt>
      <dd>{session.startedAt === null ? "—" : formatTimestamp(session.startedAt)}</dd>
    </dl>
  );
}

/** One holder session: its liveness, what it holds and waits for, and releasing all it holds. */
export function HolderSessionClient({ sessionId }: { sessionId: string }) {
  const { data, error } = useHolderSession(sessionId);
  const session = data?.session;
  return (
    <div className="stack">
      <p>
        <Link href="/sessions">← All holder sessions</Link>
      </p>
      <h1 className={styles.title}>Holder session {sessionId}</h1>
      {error && <ErrorNotice error={error} title="This holder session could not be read" />}
      {!data && !error && <p className="muted">Loading…</p>}
      {data && session && (
        <>
          <section className="card" aria-label="Summary">
            <SessionSummary session={session} />
          </section>
          <CoverageNotices coverage={data.coverage} />
          <section aria-labelledby="session-locks-heading">
            <h2 id="session-locks-heading">Locks held ({session.locksTotal})</h2>
            {session.locks.length === 0 ? (
              <p className="muted">It holds no lock.</p>
            ) : (
              <SessionLocksTable locks={session.locks} serverTimeMs={data.serverTime} />
            )}
            {session.locksTotal > session.locks.length && (
              <p className="muted">
                The first {session.locks.length} of {session.locksTotal} are listed.
              </p>
            )}
          </section>
          <section aria-labelledby="session-waits-heading">
            <h2 id="session-waits-heading">Waits ({session.waits.length})</h2>
            {session.waits.length === 0 ? (
              <p className="muted">It waits for nothing.</p>
            ) : (
              <SessionWaitsTable waits={session.waits} />
            )}
          </section>
          <section id="release" aria-labelledby="session-release-heading">
            <h2 id="session-release-heading">Release everything this session holds</h2>
            <p className="muted">
              For a wedged worker, in one audited action. Unless it reads gone, the session is asked
              first to let go of each lock by one deadline, as on a lock page; past it, or at once
              if you force, each lock it still holds is replaced by a tombstone (nobody else gets it
              before the holder has stopped, at most until its validity ends), and the session is
              told.
            </p>
            <ReleaseSessionPanel sessionId={session.id} lastSeenAt={session.lastSeenAt} />
          </section>
        </>
      )}
    </div>
  );
}
