/**
 * The sentences the timeline's transitions carry (`summary`): the UI shows them as they are, so
 * what the console knew is worded once, here. Pure; tested in test/server/timeline-rules.test.ts.
 */
import type { ExpiryCause, OverlapReason } from "@/lib/api";

/** A duration in the largest sensible unit: "850 ms", "1.5 s", "12 s", "4 min", "3 h". */
export function durationWords(durationMs: number): string {
  const ms = Math.max(0, Math.round(durationMs));
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 9_950) return `${(ms / 1_000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1_000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

/** `by ops: "stuck job" (audit 3f2…)`, each part only when known. */
function actorWords(by: string | null, reason: string | null, auditId: string | null): string {
  const who = by === null ? "" : ` by ${by}`;
  const why = reason ? `: "${reason}"` : "";
  return `${who}${why}${auditId === null ? "" : ` (audit ${auditId})`}`;
}

export interface ActorFields {
  readonly by: string | null;
  readonly reason: string | null;
  readonly auditId: string | null;
}

export const forceReleasedWords = (actor: ActorFields): string =>
  `force-released${actorWords(actor.by, actor.reason, actor.auditId)}`;

/** A tombstone reached a majority; `remainingMs`: until its TTL on a majority runs out. */
/** A hold that lost its majority to evictions: nobody released it, and its holder was not told. */
export const evictedHoldWords = (nodeIds: readonly string[]): string =>
  `lost its majority to evictions on ${nodeIds.join(", ")} (maxmemory policy): nobody released it, and the holder may still believe it holds the lock`;

export const releasingWords = (remainingMs: number): string =>
  Number.isFinite(remainingMs)
    ? `being released: the tombstone keeps everyone out until the holder acknowledges, at most ${durationWords(remainingMs)} (the replaced value's validity)`
    : "being released: the tombstone keeps everyone out until the holder acknowledges";

export const acknowledgedWords = (afterMs: number): string =>
  `released by the holder (acknowledged after ${durationWords(afterMs)})`;

export const reservationEndedWords = (afterMs: number): string =>
  `reservation ended after ${durationWords(afterMs)}: the holder never acknowledged, and the replaced value's validity is over`;

export const reservationLiftedWords = (actor: ActorFields, afterMs: number): string =>
  `reservation lifted${actorWords(actor.by, actor.reason, actor.auditId)} after ${durationWords(afterMs)} unacknowledged: the holder may not have stopped`;

/** A console-clock instant as a time of day, in UTC: "12:04:31 UTC". */
const clockWords = (epochMs: number): string =>
  `${new Date(epochMs).toISOString().slice(11, 19)} UTC`;

/** What overlapWords needs of a risk (overlap.ts `OverlapRisk`). */
export interface OverlapFacts {
  readonly reason: OverlapReason;
  readonly sinceMs: number;
  readonly by: string | null;
  readonly liftedBy: string | null;
}

/** An acquisition that may overlap its previous holder, which never confirmed it stopped. */
export function overlapWords(risk: OverlapFacts): string {
  const at = clockWords(risk.sinceMs);
  const forced = `force-released${risk.by === null ? "" : ` by ${risk.by}`}`;
  const unconfirmed = "acquired while the previous holder never confirmed it stopped";
  return {
    "reservation-unacknowledged": () =>
      `${unconfirmed} (${forced}, reservation ran out at ${at}): both may have acted as holders`,
    "reservation-lifted": () =>
      `${unconfirmed} (${forced}, reservation lifted${risk.liftedBy === null ? "" : ` by ${risk.liftedBy}`} at ${at}): both may have acted as holders`,
    "expired-while-held": () =>
      `acquired after the previous holder's lock expired while held (at ${at}) without a release: if it was only paused, both may have acted as holders`,
    evicted: () =>
      `acquired after the previous holder's lock was lost to evictions (at ${at}): it was never told, so both may have acted as holders`,
  }[risk.reason]();
}

/** When the freshest heartbeat was, against the moment the hold ran out. */
function heartbeatWords(lastSeenAt: number | null, endMs: number): string {
  if (lastSeenAt === null) return "no heartbeat on the nodes";
  return lastSeenAt <= endMs
    ? `last heartbeat ${durationWords(endMs - lastSeenAt)} before`
    : `last heartbeat ${durationWords(lastSeenAt - endMs)} after it ran out`;
}

/**
 * "expired while held: …", from what the console read of the holder's session once the hold had
 * run out at `endMs`; `answered` of `nodes` said anything (for an "unknown" read).
 */
export function expiredWords(
  cause: ExpiryCause,
  endMs: number,
  answers: { readonly answered: number; readonly nodes: number } | null,
): string {
  const seen = heartbeatWords(cause.lastSeenAt, endMs);
  const why = {
    // A guess, never proof: said as what the console saw (issue 39).
    gone: `the holder's session was gone (${seen}): its connections closed and it stopped heartbeating: probably crashed`,
    unresponsive: `the holder's session was unresponsive (${seen}): paused or blocked (a stop signal, a long GC pause, a busy event loop)`,
    alive: `the holder's session was alive (${seen}): it failed to extend in time`,
    unknown:
      cause.sessionId === null
        ? "the holder has no session (another library, or session: false): the console cannot tell whether it crashed, paused or failed to extend"
        : `the holder's session could not be read${answers && answers.nodes > 0 ? ` (${answers.answered} of ${answers.nodes} nodes answered)` : ""}`,
    "not-checked": "the holder's session was not checked (too many expiries at once)",
  }[cause.session];
  const evicted =
    cause.evictedOn.length > 0 ? `; evicted on ${cause.evictedOn.join(", ")} before` : "";
  return `expired while held: ${why}${evicted}`;
}

/**
 * What a sampled history misses, per polled node: "node-3 is polled every ~40 s: holds shorter than
 * that are not seen, and an end between two passes is dated by the pass that saw it".
 */
export function sampledWords(
  sampled: ReadonlyArray<{ readonly nodeId: string; readonly everyMs: number | null }>,
): string | null {
  if (sampled.length === 0) return null;
  const nodes = sampled
    .map(({ nodeId, everyMs }) =>
      everyMs === null
        ? `${nodeId} is polled`
        : `${nodeId} is polled every ~${durationWords(everyMs)}`,
    )
    .join(", ");
  return `History is a sample, never complete: ${nodes} (no keyspace events). Holds shorter than that are not seen there, and what happened between two passes is known only by its result.`;
}
