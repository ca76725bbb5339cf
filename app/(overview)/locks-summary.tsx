import type { LiveLocks } from "../_queries/locks";

/** The numbers above the table, and the warnings that make them incomplete. */
export function LocksSummary({
  locks,
  shown,
  cappedAt,
}: {
  locks: LiveLocks;
  shown: number;
  cappedAt: number;
}) {
  const { counts } = locks;
  return (
    <>
      <p className="muted" aria-live="polite">
        {shown === locks.total ? `${shown} locks` : `${shown} of ${locks.total} locks`} ·{" "}
        {counts.held} held · {counts.partial} partial · {counts.conflict} conflict ·{" "}
        {counts.releasing > 0 && `${counts.releasing} being released · `}scanned in{" "}
        {Math.round(locks.scanMs)} ms
      </p>
      {locks.unreachableNodes.length > 0 && (
        <p className="notice notice-warn">
          {locks.unreachableNodes.join(", ")} did not answer the scan: their holders show as
          unknown.
        </p>
      )}
      {locks.truncated && (
        <p className="notice notice-warn">
          A node holds more lock keys than CONSOLE_SCAN_MAX_KEYS: locks past the cap are not
          indexed, so this list and the history are incomplete (a lock&apos;s own page still reads
          the nodes). Raise CONSOLE_SCAN_MAX_KEYS or narrow LOCK_MATCH.
        </p>
      )}
      {shown < locks.total && shown >= cappedAt && (
        <p className="notice notice-warn">
          Only the first {cappedAt} locks are listed: narrow the pattern to see the rest.
        </p>
      )}
    </>
  );
}
