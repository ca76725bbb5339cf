/**
 * The one rule of an on-call unlock (issue 39, items 1 and 4): from the format of the value, the
 * holder's liveness and the operator's choice, what a force-release does (a tombstone, the explicit
 * delete-now, nothing, or a refusal), whether to ask the holder first, and the words the dialog and
 * the audit use. Pure and browser-safe: the lock page's preview and the server's `releaseHolder`
 * both call it; the server again from a fresh read of the nodes when it acts.
 *
 * Nothing deletes a value that still has validity unless an operator says so knowingly: whatever
 * the liveness reads, the value is replaced by a tombstone that lasts until the holder acknowledges
 * or the value's validity (plus drift) ends. This supersedes issue 31's "a gone holder's lock is
 * released at once": "gone" is a guess (closed connections and a late heartbeat), never proof.
 */
import { driftMs } from "@redlock-console/redlock/protocol";
import type { NoSessionChoice } from "./actions";
import type { HolderSessionState } from "./holder-session";

/** The value as the rule tells it apart. */
export type UnlockFormat =
  /** `rl1:<token>:<json>`: this library (the only one whose holder can have a session). */
  | "this-library"
  /** A plain string value of another library (node-redlock, redsync…): nobody acknowledges. */
  | "other-library"
  /** A Redisson hash: it cannot hold a string tombstone. */
  | "redisson-hash"
  /** An earlier force-release's tombstone: already reserved. */
  | "tombstone";

/** What the operator asked for: the default reservation, or the explicit immediate delete. */
export type UnlockChoice = "tombstone" | "delete-now";

export interface UnlockCase {
  /** null: the value is not known (`force: true`, or no majority value): each node's is reserved. */
  readonly format: UnlockFormat | null;
  /** The holder's session liveness; "unknown": the value names no session; null: not read. */
  readonly liveness: HolderSessionState | null;
  readonly choice: UnlockChoice;
  /** For a holder without a session: the operator's answer ("release-now" is delete-now). */
  readonly noSession: NoSessionChoice | null;
  /**
   * How long the reservation lasts (tombstone, or the one standing), or the validity a delete-now
   * removes, in ms; null when not known (a value without TTL: the tombstone is capped instead).
   */
  readonly reservedForMs: number | null;
  /** Epoch ms the words count from (the console's clock). */
  readonly nowMs: number;
}

export type UnlockRefusal =
  /** A Redisson hash lock is deleted only by the explicit delete-now. */
  | "hash_lock_needs_delete_now"
  /** A holder without a session: the operator must choose (nothing is preselected). */
  | "no_session_choice";

export interface UnlockDecision {
  readonly disposal: "tombstone" | "delete-now" | "none" | "refuse";
  /** Set when `disposal` is "refuse". */
  readonly refusal: UnlockRefusal | null;
  /** The holder has a session that may answer: ask it to release (revoke) before forcing. */
  readonly askFirst: boolean;
  /** What the dialog says before the click, and the answer after it. */
  readonly words: string;
  /** Why, for the audit line. */
  readonly audit: string;
}

/**
 * The console's drift factor: its Redlock sets none (lib/server/console.ts), so it is the library's
 * default (`defaultSettings.driftFactor`; a test pins the two together). The server reads its own
 * (`ctx.redlock.settings.driftFactor`); the browser, which does not run the
 * console's Redlock, this one.
 */
export const DEFAULT_DRIFT_FACTOR = 0.01;

/** How long a tombstone over a value with `pttlMs` left keeps everyone out: PTTL plus the library's drift. */
export function reservationMs(pttlMs: number, ttlMs: number | null, driftFactor: number): number {
  return pttlMs + driftMs(ttlMs ?? pttlMs, driftFactor);
}

/** Liveness in words: "gone" is said as what it is, never as proof. */
export const LIVENESS_WORDS: Record<HolderSessionState, string> = {
  alive: "its session heartbeats: it still runs",
  unresponsive: "its heartbeat is late: paused, busy or cut off, and it may resume",
  gone: "its connections closed and it stopped heartbeating: probably crashed (a guess, not proof)",
  unknown: "it has no session: the console cannot tell whether it still runs",
};

/** Tenths of a second, rounded up (a bound is never said shorter), always with the tenth: "59.0 s". */
const seconds = (ms: number) => `${(Math.ceil(ms / 100) / 10).toFixed(1)} s`;
const until = (nowMs: number, ms: number) => new Date(nowMs + ms).toISOString();

function reserveWords(input: UnlockCase): string {
  const { reservedForMs, nowMs } = input;
  const bound =
    reservedForMs === null
      ? "at most one session window (its value has no TTL)"
      : `at most ${seconds(reservedForMs)} (until ${until(nowMs, reservedForMs)})`;
  return `replaced by a tombstone: nobody else gets it for ${bound}, unless the holder acknowledges first; if it has not stopped by then, two processes may act as holders`;
}

function deleteWords(input: UnlockCase): string {
  const { reservedForMs, nowMs } = input;
  return reservedForMs === null
    ? "deleted now: if the holder still runs, two processes may act as holders until it stops"
    : `deleted now: may make two holders until ${until(nowMs, reservedForMs)} (the ${seconds(reservedForMs)} of validity it removes)`;
}

const decision = (
  disposal: UnlockDecision["disposal"],
  words: string,
  audit: string,
  extra: Partial<Pick<UnlockDecision, "askFirst" | "refusal">> = {},
): UnlockDecision => ({ disposal, refusal: null, askFirst: false, words, audit, ...extra });

export function unlockRule(input: UnlockCase): UnlockDecision {
  const { format, liveness, choice, noSession, reservedForMs, nowMs } = input;
  const holder = liveness === null ? "" : `the holder: ${LIVENESS_WORDS[liveness]}; `;
  if (choice === "delete-now" || (liveness === "unknown" && noSession === "release-now"))
    return decision(
      "delete-now",
      `${holder}${deleteWords(input)}`,
      `explicit delete-now (${liveness ?? "liveness not read"}): ${deleteWords(input)}`,
    );
  if (format === "tombstone") {
    const standing = reservedForMs === null ? "" : ` until ${until(nowMs, reservedForMs)}`;
    return decision(
      "none",
      `already reserved by an earlier force-release${standing}: nothing is written (a second force-release never lengthens it; lifting it is the explicit delete-now)`,
      `already reserved${standing}: nothing written`,
    );
  }
  if (format === "redisson-hash")
    return decision(
      "refuse",
      "a Redisson hash lock cannot hold a tombstone: it can only be deleted now, with the explicit delete-now (may make two holders)",
      "refused: a Redisson hash lock needs the explicit delete-now",
      { refusal: "hash_lock_needs_delete_now" },
    );
  if (liveness === "unknown" && format !== null && noSession === null)
    return decision(
      "refuse",
      `${holder}choose: hold it until its validity ends (a tombstone), or delete it now`,
      "refused: no session, and the operator did not choose",
      { refusal: "no_session_choice" },
    );
  const askFirst = liveness === "alive" || liveness === "unresponsive";
  const what = format === null ? "each node's value (whatever it holds)" : "its value";
  return decision(
    "tombstone",
    `${holder}${what} ${reserveWords(input)}`,
    `${format === null ? "any value" : `holder ${liveness}`}${liveness === "unknown" ? ": operator chose hold-until-ttl" : ""}: reserved by a tombstone until the holder acknowledges or its validity ends`,
    { askFirst },
  );
}
