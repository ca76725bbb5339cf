/**
 * Why a hold expired while held, as far as the console can tell (issue 31, item 6): once the hold
 * has run out, its holder's session is read once and judged by liveness.ts. Pure: the read is
 * session-checks.ts's. Tested as tables in test/server/timeline-rules.test.ts.
 */
import type { ExpiryCause } from "@/lib/api";
import { deriveLiveness, type SessionReading } from "../sessions/liveness";
import { DEFAULT_HEARTBEAT_MS, lateAfterMs, quorumSize } from "@redlock-console/redlock";
import { expiredWords } from "./wording";

/**
 * The session is read this long after the hold ran out, not at once: a holder that stopped just
 * before its expiry (a crash between two extensions, a pause) has a heartbeat that is not late yet
 * and would read as alive. By then, at the default heartbeat, a stopped holder's heartbeat is late
 * (gone or unresponsive) while a running one's is fresh (alive). A session with a longer heartbeat
 * (it is only known once read) may still read alive.
 */
export const SESSION_CHECK_DELAY_MS = lateAfterMs(DEFAULT_HEARTBEAT_MS) + 500;

/** When to read the session of a hold that ran out at `endMs`, seen at `nowMs`. */
export const sessionCheckAtMs = (endMs: number, nowMs: number): number =>
  Math.max(nowMs, endMs + SESSION_CHECK_DELAY_MS);

/** An expired hold whose cause is wanted. */
export interface ExpiryCheck {
  /** The session its value names; null when none. */
  readonly sessionId: string | null;
  /** When its validity ran out (console clock). */
  readonly endMs: number;
  /** Nodes that evicted the value. */
  readonly evictedOn: readonly string[];
}

/**
 * The cause of `check`'s expiry and its sentence, from what every lock node said of the session at
 * `checkedAtMs` ("not-checked": it was not read). Fewer than a majority answering is "unknown":
 * liveness.ts would call it unresponsive, which is safe for a force-release but no explanation.
 */
export function expiryCause(
  check: ExpiryCheck,
  readings: readonly SessionReading[] | "not-checked",
  checkedAtMs: number,
): { cause: ExpiryCause; summary: string } {
  const base = {
    sessionId: check.sessionId,
    lastSeenAt: null,
    checkedAt: null,
    evictedOn: [...check.evictedOn],
  };
  let cause: ExpiryCause;
  let answers: { answered: number; nodes: number } | null = null;
  if (check.sessionId === null) cause = { ...base, session: "unknown" };
  else if (readings === "not-checked") cause = { ...base, session: "not-checked" };
  else {
    const liveness = deriveLiveness(check.sessionId, readings, checkedAtMs);
    answers = {
      answered: readings.filter((reading) => reading.answered).length,
      nodes: readings.length,
    };
    cause = {
      ...base,
      session: answers.answered < quorumSize(readings.length) ? "unknown" : liveness.state,
      lastSeenAt: liveness.lastSeenAt,
      checkedAt: checkedAtMs,
    };
  }
  return { cause, summary: expiredWords(cause, check.endMs, answers) };
}
