"use client";

import { formatDurationMs } from "@/components/ui/format";
import { useServerNow } from "@/hooks/use-server-now";

interface PttlBarProps {
  /** Accessible name, e.g. "node-1 time to live". */
  label: string;
  /** Server-clock epoch ms at which the key expires; null when absent; Infinity when it never expires. */
  expiresAtMs: number | null;
  /** Time that fills the whole bar, in ms (the longest PTTL seen for this value). */
  scaleMs: number;
}

/** A key's remaining time to live as a shrinking bar, ticking from the server's clock. */
export function PttlBar({ label, expiresAtMs, scaleMs }: PttlBarProps) {
  const nowMs = useServerNow();
  if (expiresAtMs === null) return <span className="muted">no key</span>;
  if (expiresAtMs === Number.POSITIVE_INFINITY)
    return <span className="muted">no expiry (PTTL -1)</span>;
  const remainingMs = nowMs === null ? 0 : Math.max(0, expiresAtMs - nowMs);
  const fraction = scaleMs > 0 ? Math.min(1, remainingMs / scaleMs) : 0;
  return (
    <span className="pttl">
      <span
        className="pttl-track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={Math.round(scaleMs)}
        aria-valuenow={Math.round(remainingMs)}
        aria-valuetext={formatDurationMs(remainingMs)}
      >
        <span className="pttl-fill" style={{ width: `${fraction * 100}%` }} />
      </span>
      <span className="countdown" data-remaining-ms={remainingMs}>
        {formatDurationMs(remainingMs)}
      </span>
    </span>
  );
}
