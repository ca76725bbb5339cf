/**
 * Overlaps are never silent (issue 39, item 5): a hold or a reservation that ended without its
 * holder confirming it stopped leaves a risk on the lock, and the next acquisition carries it as
 * `possibleOverlap`. A holder confirms by releasing, or by acknowledging its force-release (its
 * library deletes its own tombstone, reservation.ts); an expiry while held, an eviction, or a
 * tombstone that ran out by its TTL or that an operator lifted may leave a routine running beside
 * the next holder. A force-release that deleted the value leaves no risk here: a tombstone that its
 * holder acknowledged within milliseconds, before the console read the key, looks just the same.
 * Pure; tested as a table in test/server/timeline-overlap-rules.test.ts.
 */
import type { OverlapReason, OwnerInfo, PossibleOverlap } from "@/lib/api";
import { ownerOf, type Hold } from "./hold-fold";
import type { TransitionFields } from "./session-checks";

/** A claim on a lock that ended unconfirmed, remembered to flag the next acquisition. */
export interface OverlapRisk {
  readonly reason: OverlapReason;
  /** The previous holder's value (a reservation: its tombstone). */
  readonly value: string;
  readonly owner: OwnerInfo | null;
  /** When the claim ended unconfirmed (console clock). */
  readonly sinceMs: number;
  /** Who force-released the previous holder; null when nobody did. */
  readonly by: string | null;
  /** reservation-lifted: who lifted the tombstone. */
  readonly liftedBy: string | null;
}

/** What the timeline knows of a hold's end (hold-transitions.ts `Ended`). */
export interface EndSeen {
  readonly hold: Hold;
  readonly fields: Pick<TransitionFields, "kind" | "by">;
  readonly endMs: number;
}

const REASON_OF_END: Partial<Record<TransitionFields["kind"], OverlapReason>> = {
  expired: "expired-while-held",
  evicted: "evicted",
  "reservation-ended": "reservation-unacknowledged",
  "reservation-lifted": "reservation-lifted",
};

/**
 * The risk `ended` leaves on its lock; null when its holder released or acknowledged, or when a
 * tombstone took its place (the reservation's end decides then).
 */
export function overlapRiskOf({ hold, fields, endMs }: EndSeen): OverlapRisk | null {
  const reason = REASON_OF_END[fields.kind];
  if (reason === undefined) return null;
  // A reservation's owner is the replaced holder's; its tombstone says who force-released it.
  return {
    reason,
    value: hold.value,
    owner: ownerOf(hold),
    sinceMs: endMs,
    by: hold.tombstone?.by ?? null,
    liftedBy: reason === "reservation-lifted" ? (fields.by ?? null) : null,
  };
}

/** The flag an acquisition of `value` carries after `risk`; null when none. */
export function possibleOverlapOf(
  risk: OverlapRisk | undefined,
  value: string,
): PossibleOverlap | null {
  // The same value again is the same holder (a node set it back), not a new one.
  if (!risk || risk.value === value) return null;
  return {
    reason: risk.reason,
    previousValue: risk.value,
    previousOwner: risk.owner,
    since: risk.sinceMs,
    by: risk.by,
  };
}
