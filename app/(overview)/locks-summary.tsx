import type { LiveLocks } from "../_queries/locks";

/** The numbers above the table, and the warnings that make them incomplete. */
export function LocksSummary({
  locks,
  live,
  cappedAt,
}: {
  locks: LiveLocks;
  /** The change stream is open: rows change as the nodes do, not at the next poll. */
  live: boolean;
  cappedAt: number;
}) {
  const { counts } = locks;
  return (
    <>
      <p className="muted" aria-live="polite">
        {locks.total} locks · {live ? "live" : "refreshed every 2 s (live updates not connected)"} ·{" "}
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
      {locks.total > cappedAt && (
        <p className="notice notice-warn">
          Only the first {cappedAt} locks in this order are listed: narrow the pattern, or sort the
          other way to see the rest.
        </p>
      )}
    </>
  );
}
