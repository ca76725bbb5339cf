/**
 * How the force-release dialog titles itself and which actions it shows (issue 39 item 6): titled
 * by what it does; "Ask to release" and "Force release" both visible when the rule
 * (lib/api/unlock-rule.ts, through force-release-plan.ts) says the holder may answer; the words and
 * the deadline beside Ask fit the holder's state (a paused holder cannot answer while paused); the
 * explicit delete-now its own control, its label saying until when two processes may act. Pure.
 */
import { formatClock } from "@/components/ui/format";
import { DEFAULT_REVOKE_DEADLINE_MS, MIN_REVOKE_DEADLINE_MS } from "@/lib/api";
import type { HolderSessionState } from "@/lib/api";
import type { ForceReleasePlan } from "./force-release-plan";

export interface DialogActions {
  /** "Ask the holder to release orders:42" or "Force release orders:42". */
  title: string;
  /** The action the form submits (Enter); the other one stays visible beside it. */
  primary: "ask" | "force";
  /** "Ask to release" is shown: the rule says to ask first (the holder has a session). */
  askOffered: boolean;
  /** What asking can do for this holder, said beside the deadline; null when not offered. */
  askWords: string | null;
  /** Force release alone would be refused (a Redisson hash): only the explicit delete-now acts. */
  forceNeedsDeleteNow: boolean;
  /**
   * The explicit delete-now is its own control; not for a holder without a session, whose
   * choice ("release now, accepting an overlap") is that very delete.
   */
  deleteNowOffered: boolean;
}

const CAN_ANSWER =
  "Its session heartbeats, so it can answer: asked, its routine is told to stop and its library releases the lock itself. If it has not let go by the deadline, force it.";
const CANNOT_ANSWER =
  "Its heartbeat is late (paused, GC, a blocked event loop or cut off): it cannot answer while paused, so asking helps only if it resumes before the deadline. Force release reserves the lock now, whatever the holder does.";

export function dialogActions(input: {
  resource: string;
  plan: ForceReleasePlan;
  liveness: HolderSessionState | null;
  /** The holder was asked already: the dialog stays the asking one. */
  asked: boolean;
}): DialogActions {
  const { resource, plan, liveness, asked } = input;
  const askOffered = plan.kind === "ask-first";
  const asks = asked || (askOffered && liveness === "alive");
  return {
    title: asks ? `Ask the holder to release ${resource}` : `Force release ${resource}`,
    primary: asks ? "ask" : "force",
    askOffered,
    askWords: askOffered ? (liveness === "alive" ? CAN_ANSWER : CANNOT_ANSWER) : null,
    forceNeedsDeleteNow: plan.kind === "force" && plan.why === "redisson",
    deleteNowOffered: plan.kind !== "choose",
  };
}

/**
 * The deadline the Ask field starts with, in seconds: an alive holder gets the default; a paused
 * one cannot extend, so its lock ends with its validity anyway: no longer than that (at least the
 * API's minimum).
 */
export function defaultDeadlineS(
  liveness: HolderSessionState | null,
  reservedForMs: number | null,
): number {
  const defaultMs = DEFAULT_REVOKE_DEADLINE_MS;
  if (liveness !== "unresponsive" || reservedForMs === null) return defaultMs / 1_000;
  const fitMs = Math.min(defaultMs, Math.max(MIN_REVOKE_DEADLINE_MS, reservedForMs));
  return Math.ceil(fitMs / 1_000);
}

/**
 * The explicit delete-now's label: "Delete now (may make two holders until 12:34:56)", the end of
 * the validity it removes (`untilMs`, epoch ms); without one (no TTL), until the holder stops.
 */
export function deleteNowLabel(untilMs: number | null): string {
  const until = untilMs === null ? "the holder stops" : formatClock(untilMs);
  return `Delete now (may make two holders until ${until})`;
}

/** Beside the delete-now control: why it is the way on, when Force release alone is not. */
export function onlyWayOf(plan: ForceReleasePlan): string | null {
  if (plan.kind !== "force") return null;
  if (plan.why === "redisson") return "The only way to release a Redisson hash lock.";
  if (plan.why === "lift-tombstone") return "The only way to lift the standing tombstone.";
  return null;
}

/** The title of a force-release's error: the fix beside the problem. */
export function failureTitle(code: string | undefined): string {
  if (code === "hash_lock_needs_delete_now")
    return "Refused: a Redisson hash lock is released only by Delete now (below)";
  if (code === "quorum_unavailable") return "Nothing was written: too few nodes answered";
  return "Force-release failed";
}
