"use client";

import { formatDurationMs } from "@/components/ui/format";
import { useServerNow } from "@/hooks/use-server-now";

interface ValidityCountdownProps {
  /**
   * Server-clock epoch ms at which validity ends (see `expiresAtMs`); null: no majority holds a
   * value; Infinity: the key has no TTL (PTTL -1), it never expires on its own.
   */
  validUntilMs: number | null;
}

/** Time left until `validUntilMs`, ticking ten times a second from the server's clock. */
export function ValidityCountdown({ validUntilMs }: ValidityCountdownProps) {
  const nowMs = useServerNow();
  if (validUntilMs === Number.POSITIVE_INFINITY)
    return <span className="countdown muted">no expiry</span>;
  if (validUntilMs === null) return <span className="countdown muted">no majority</span>;
  if (nowMs === null) return <span className="countdown">…</span>;

  const remainingMs = Math.max(0, validUntilMs - nowMs);
  return (
    <span
      className={remainingMs === 0 ? "countdown expired" : "countdown"}
      data-remaining-ms={remainingMs}
    >
      {remainingMs === 0 ? "expired" : formatDurationMs(remainingMs)}
    </span>
  );
}

/**
 * A lock's validity left on a majority. At zero the server has not said the lock expired: a holder
 * that extends (using(), auto-extension) does so just before this instant, and the extension shows
 * when the next page arrives. So zero reads "renewal due", never "expired": only the server says a
 * lock expired (its row goes, an `expired` event is recorded).
 */
export function LockValidity({ validUntilMs }: ValidityCountdownProps) {
  const nowMs = useServerNow();
  if (validUntilMs === null || validUntilMs === Number.POSITIVE_INFINITY || nowMs === null)
    return <ValidityCountdown validUntilMs={validUntilMs} />;
  const remainingMs = Math.max(0, validUntilMs - nowMs);
  if (remainingMs > 0) return <ValidityCountdown validUntilMs={validUntilMs} />;
  return (
    <span
      className="countdown muted"
      data-remaining-ms={0}
      title="The validity last read has run out: the holder usually extends about now. The lock is expired only when the nodes drop it, and then its row goes."
    >
      renewal due
    </span>
  );
}
