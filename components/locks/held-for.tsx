"use client";

import { formatDurationMs } from "@/components/ui/format";
import { useServerNow } from "@/hooks/use-server-now";

/** Time since `sinceMs` (server-clock epoch ms), ticking every second; "—" when unknown. */
export function ElapsedSince({ sinceMs, label }: { sinceMs: number | null; label?: string }) {
  const nowMs = useServerNow(1_000);
  if (sinceMs === null) return <span className="muted">—</span>;
  if (nowMs === null) return <span className="countdown">…</span>;
  const elapsedMs = Math.max(0, nowMs - sinceMs);
  return (
    <span
      className="countdown"
      data-elapsed-ms={elapsedMs}
      aria-label={label ? `${label} ${formatDurationMs(elapsedMs)}` : undefined}
    >
      {formatDurationMs(elapsedMs)}
    </span>
  );
}
