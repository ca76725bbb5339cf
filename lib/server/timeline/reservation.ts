/**
 * A force-release's tombstone in the timeline (docs/holder-sessions.md). The console's
 * compare-and-set writes `rlx:<token of the replaced value>:…` only over that value, so a tombstone
 * naming a hold's token on any node proves the hold was force-released (whichever console did it);
 * its JSON says who, why and the audit entry. The tombstone itself is a reservation, not a hold:
 * "being released" while on a majority, then acknowledged (the holder's library deleted it),
 * ended (it ran out unacknowledged) or lifted (a force-release of the tombstone itself). Pure;
 * tested as tables in test/server/timeline-rules.test.ts.
 */
import { quorumSize } from "@redlock-console/redlock";
import type { TransitionKind } from "@/lib/api";
import type { Reads } from "../locks/rows/live-index";
import { decodeTombstone, tokenOf } from "../locks/read/tombstone";
import { lossTally, marks, type ForceMark, type Hold, type Tombstone } from "./hold-fold";

/** The tombstone that replaced `value` on some node of `reads`; null when none does. */
export function replacingTombstone(value: string, reads: Reads): Tombstone | null {
  let token: string | null = null;
  for (const read of reads) {
    if (read?.format !== "tombstone") continue;
    token ??= tokenOf(value);
    const tombstone = decodeTombstone(read.value);
    if (tombstone?.token === token) return tombstone;
  }
  return null;
}

export type ReservationEndKind = Extract<
  TransitionKind,
  "release-acknowledged" | "reservation-ended" | "reservation-lifted"
>;

export interface ReservationEnd {
  readonly kind: ReservationEndKind;
  /** An unacknowledged reservation ended when its TTL ran out (the nodes' events may come later). */
  readonly endMs: number;
  /** How long the tombstone stood, from when the console laid it. */
  readonly heldMs: number;
  /** Lifted: who lifted it and why (the mark's); else who laid it (the tombstone's). */
  readonly by: string | null;
  readonly reason: string | null;
  readonly auditId: string | null;
}

/**
 * How the reservation `hold` (a tombstone) ended once it left the majority, at `nowMs`: lifted when
 * this console marked it; acknowledged when deletes alone took it off the majority (only the
 * holder's library deletes a tombstone, with a compare-and-delete on its token); else ended.
 * Deletes must suffice on their own: once expiries have taken the tombstone off the majority, the
 * next holder may already hold the lock, and a late acknowledgement then deletes what is left of
 * the tombstone on a minority. The nodes' events come in any order, so more deletes than expiries
 * among the losses seen so far (two late deletes beside one expiry, of five) proves nothing.
 */
export function reservationEnd(
  hold: Hold & { readonly tombstone: Tombstone },
  mark: ForceMark | undefined,
  nowMs: number,
): ReservationEnd {
  const { deleted } = lossTally(hold, nowMs);
  const heldOn = hold.heldOn.filter(Boolean).length;
  const lossesOffMajority = heldOn - quorumSize(hold.heldOn.length) + 1;
  const kind: ReservationEndKind = marks(mark, hold)
    ? "reservation-lifted"
    : deleted >= lossesOffMajority
      ? "release-acknowledged"
      : "reservation-ended";
  const endMs =
    kind === "reservation-ended" && Number.isFinite(hold.expiresAtMs)
      ? Math.min(nowMs, hold.expiresAtMs)
      : nowMs;
  const lifted = kind === "reservation-lifted" ? mark : undefined;
  return {
    kind,
    endMs,
    heldMs: Math.max(0, endMs - hold.sinceMs),
    by: lifted ? lifted.by : hold.tombstone.by,
    reason: lifted ? lifted.reason : hold.tombstone.reason,
    auditId: lifted ? (lifted.auditId ?? null) : hold.tombstone.auditId,
  };
}
