/**
 * A holder session's state in words, as an on-call engineer reads it at 3 a.m.: never a colour or
 * a code alone. Pure: the time is passed in (server clock, epoch ms).
 */
import { formatAgeMs } from "@/components/ui/format";
import type { HolderSession } from "@/lib/api";

type StateAndHeartbeat = Pick<HolderSession, "state" | "lastSeenAt">;

/** "12 s ago", or null when no heartbeat was read. */
export function heartbeatAgo(lastSeenAt: number | null, nowMs: number): string | null {
  return lastSeenAt === null ? null : `${formatAgeMs(nowMs - lastSeenAt)} ago`;
}

/**
 * A session's state without its subject: "alive, last heartbeat 0.4 s ago", "unresponsive for
 * 12 s (paused, GC or a blocked event loop)", "gone (its connections closed and it stopped
 * heartbeating: probably crashed)", "no session (…)".
 */
export function sessionStateText({ state, lastSeenAt }: StateAndHeartbeat, nowMs: number): string {
  const ago = heartbeatAgo(lastSeenAt, nowMs);
  switch (state) {
    case "alive":
      return ago === null ? "alive" : `alive, last heartbeat ${ago}`;
    case "unresponsive":
      return `unresponsive ${
        lastSeenAt === null
          ? "(no heartbeat found on the nodes)"
          : `for ${formatAgeMs(nowMs - lastSeenAt)}`
      } (paused, GC or a blocked event loop)`;
    case "gone":
      // A guess, never proof (a proxy, a network cut or a process that closed its own clients
      // shows the same): the timeline and docs/holder-sessions.md say it alike.
      return "gone (its connections closed and it stopped heartbeating: probably crashed)";
    case "unknown":
      return "no session (another library or session: false)";
  }
}

/** The same, about a lock's holder: "holder alive, …", "holder has no session (…)". */
export function holderStateText(session: StateAndHeartbeat, nowMs: number): string {
  const text = sessionStateText(session, nowMs);
  return session.state === "unknown" ? `holder has ${text}` : `holder ${text}`;
}

/** What a force-release does to a holder in this state, said after its state in the dialog. */
export const FORCE_CONSEQUENCE: Record<HolderSession["state"], string | null> = {
  alive: null,
  unresponsive: "forcing may let two processes act at once",
  // Issue 39: gone is a guess; forcing tombstones its lock like any other (lib/api/unlock-rule.ts).
  gone: "forcing still keeps everyone out until its validity ends, in case it runs on",
  unknown: null,
};
