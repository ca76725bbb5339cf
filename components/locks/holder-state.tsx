"use client";

import type { HolderSession } from "@/lib/api";
import { useServerNow } from "@/hooks/use-server-now";
import { heartbeatAgo, holderStateText, sessionStateText } from "./holder-state-text";

interface HolderStateProps {
  session: Pick<HolderSession, "state" | "lastSeenAt">;
  /** "holder": about a lock's holder ("holder alive, …"); "session": the state alone ("alive, …"). */
  subject: "holder" | "session";
  /** Said after the state, e.g. what forcing would do. */
  consequence?: string | null;
}

/** A holder session's state in words, its heartbeat's age ticking; the colour only reinforces it. */
export function HolderState({ session, subject, consequence }: HolderStateProps) {
  const nowMs = useServerNow(100);
  if (nowMs === null) return <span className="muted">…</span>;
  const text =
    subject === "holder" ? holderStateText(session, nowMs) : sessionStateText(session, nowMs);
  return (
    <span className={`holder-state holder-state-${session.state}`} data-state={session.state}>
      {consequence ? `${text}: ${consequence}` : text}
    </span>
  );
}

/** "12 s ago", ticking; "none found" when no node holds a heartbeat. */
export function HeartbeatAgo({ lastSeenAt }: { lastSeenAt: number | null }) {
  const nowMs = useServerNow(100);
  if (lastSeenAt === null) return <span className="muted">none found</span>;
  if (nowMs === null) return <span className="countdown">…</span>;
  return <span className="countdown">{heartbeatAgo(lastSeenAt, nowMs)}</span>;
}
