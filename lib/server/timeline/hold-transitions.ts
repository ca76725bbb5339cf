/**
 * The transitions that start and end a hold or a reservation (a force-release's tombstone), built
 * from the rules of hold-fold.ts and reservation.ts with their sentences (wording.ts). Pure: the
 * timeline keeps the holds and emits what these return. An `expired` transition's cause is added
 * later, once the holder's session is read (session-checks.ts).
 */
import type { Reads } from "../locks/rows/live-index";
import { holdEnd, marks, ownerOf, type ForceMark, type Hold, type Tombstone } from "./hold-fold";
import { possibleOverlapOf, type OverlapRisk } from "./overlap";
import { replacingTombstone, reservationEnd } from "./reservation";
import type { TransitionFields } from "./session-checks";
import {
  evictedHoldWords,
  acknowledgedWords,
  forceReleasedWords,
  overlapWords,
  releasingWords,
  reservationEndedWords,
  reservationLiftedWords,
} from "./wording";

export interface Ended {
  readonly hold: Hold;
  readonly fields: TransitionFields;
  /** When it ended (an expiry: when its validity ran out). */
  readonly endMs: number;
  /** The tombstone that replaced the hold; null when none did. */
  readonly tombstone: Tombstone | null;
  /** Whether this console's force mark explains the end (then it is spent). */
  readonly markUsed: boolean;
  /** The nodes that evicted the value. */
  readonly evictedOn: readonly string[];
}

/**
 * How `hold` (of lock `key`) ended at `nowMs`, `reads` being what the nodes hold now (`nodeIds`:
 * their ids). A hold lost to evictions names the nodes that evicted it.
 */
export function endOf(
  key: string,
  hold: Hold,
  mark: ForceMark | undefined,
  reads: Reads,
  nowMs: number,
  nodeIds: readonly string[] = [],
): Ended {
  const { value, waiters } = hold;
  const base = { resource: key, at: nowMs, value, owner: ownerOf(hold), waiters };
  if (hold.tombstone) {
    const end = reservationEnd({ ...hold, tombstone: hold.tombstone }, mark, nowMs);
    const summary = {
      "release-acknowledged": () => acknowledgedWords(end.heldMs),
      "reservation-ended": () => reservationEndedWords(end.heldMs),
      "reservation-lifted": () => reservationLiftedWords(end, end.heldMs),
    }[end.kind]();
    const { kind, heldMs, by, reason, auditId } = end;
    return {
      hold,
      fields: { ...base, kind, heldMs, by, reason, auditId, summary },
      endMs: end.endMs,
      tombstone: null,
      markUsed: kind === "reservation-lifted",
      evictedOn: [],
    };
  }
  const tombstone = replacingTombstone(value, reads);
  const end = holdEnd(hold, mark, nowMs, tombstone);
  const { kind, heldMs, by, reason, auditId } = end;
  const forced = kind === "force-released";
  const evictedOn = nodeIds.filter((_, node) => hold.causes[node] === "evicted");
  const evicted = kind === "evicted" && {
    nodeIds: evictedOn,
    summary: evictedHoldWords(evictedOn),
  };
  return {
    hold,
    fields: {
      ...base,
      kind,
      heldMs,
      by,
      reason,
      auditId,
      summary: forced ? forceReleasedWords(end) : null,
      ...evicted,
    },
    endMs: end.endMs,
    tombstone,
    markUsed: forced && marks(mark, hold),
    evictedOn,
  };
}

/** The hold of lock `key` was extended (its quorum expiry moved later), seen at `nowMs`. */
export const extendedOf = (key: string, hold: Hold, nowMs: number): TransitionFields => ({
  kind: "extended",
  resource: key,
  at: nowMs,
  value: hold.value,
  owner: ownerOf(hold),
  heldMs: nowMs - hold.sinceMs,
  waiters: hold.waiters,
});

/**
 * What starts when `next` reaches a majority of lock `key` at `nowMs`: a reservation ("releasing",
 * with the owner of the hold its tombstone replaced, when that is the hold that just `ended`) or an
 * acquisition (flagged as a possible overlap after `risk`: a previous claim that ended unconfirmed).
 */
export function startOf(
  key: string,
  next: Hold,
  ended: Ended | null,
  risk: OverlapRisk | undefined,
  nowMs: number,
): { hold: Hold; fields: TransitionFields } {
  const base = { resource: key, at: nowMs, value: next.value, waiters: next.waiters };
  const { tombstone } = next;
  if (tombstone) {
    const replaced = ended?.tombstone?.token === tombstone.token ? ended.hold : null;
    const owner = replaced && ownerOf(replaced);
    const { by, reason, auditId } = tombstone;
    const summary = releasingWords(next.expiresAtMs - nowMs);
    return {
      hold: { ...next, ownerApart: owner },
      fields: { ...base, kind: "releasing", owner, by, reason, auditId, summary },
    };
  }
  const possibleOverlap = possibleOverlapOf(risk, next.value);
  const reason = possibleOverlap?.reason;
  // Kept for consumers that read it before possibleOverlap: the same previous holder and instant.
  const afterExpired =
    possibleOverlap && (reason === "expired-while-held" || reason === "evicted")
      ? { value: risk!.value, owner: risk!.owner, expiredAt: risk!.sinceMs }
      : null;
  const summary = possibleOverlap && overlapWords(risk!);
  const flags = { afterExpired, possibleOverlap, summary };
  return { hold: next, fields: { ...base, kind: "acquired", owner: ownerOf(next), ...flags } };
}
