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
