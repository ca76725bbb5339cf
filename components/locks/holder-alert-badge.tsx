"use client";

import Link from "next/link";
import { formatAgeMs } from "@/components/ui/format";
import { useServerNow } from "@/hooks/use-server-now";
import type { HolderSessionState } from "@/lib/api";

interface HolderAlertBadgeProps {
  state: Extract<HolderSessionState, "unresponsive" | "gone">;
  /** Console clock (epoch ms) of the holder's freshest heartbeat; null when none was found. */
  lastSeenAt: number | null;
  /** The lock page, where the fix is: Ask to release, then Force release. */
  href: string;
}

/**
 * "holder unresponsive 12 s" / "holder gone" in a lock's row, linking to the lock page where the
 * engineer can ask the holder to release or force-release it (what forcing does depends on the state).
 */
export function HolderAlertBadge({ state, lastSeenAt, href }: HolderAlertBadgeProps) {
  const nowMs = useServerNow(1_000);
  const text =
    state === "gone"
      ? "holder gone"
      : lastSeenAt === null || nowMs === null
        ? "holder unresponsive"
        : `holder unresponsive ${formatAgeMs(nowMs - lastSeenAt)}`;
  const hint =
    state === "gone"
      ? "Its connections are closed and its heartbeat stopped: open the lock to release it now"
      : "Its heartbeat is late (paused, GC or a blocked event loop): open the lock to ask it to release; forcing may let two processes act at once";
  return (
    <Link href={href} className="badge badge-flag" title={hint} data-holder-alert={state}>
      {text}
    </Link>
  );
}
