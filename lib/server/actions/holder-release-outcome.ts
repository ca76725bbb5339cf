import "server-only";
/**
 * What a force-release did, said as it happened (issue 39): the mode ("unchanged" or "absent" when
 * nothing was written, never "deleted"), until when the tombstone keeps everyone out, until when a
 * delete-now may make two holders, and whether the value stood on a majority; in the words of
 * lib/api/unlock-rule.ts, with the numbers the nodes answered.
 */
import {
  unlockRule,
  type ForceReleaseMode,
  type ForceReleaseNodeResult,
  type HolderSessionState,
  type UnlockCase,
} from "@/lib/api";
import type { ForceReleaseOutcome } from "./force-release";

export interface HolderRelease {
  readonly outcome: ForceReleaseOutcome;
  readonly mode: ForceReleaseMode;
  /** null with `force: true` (no liveness is read), or when nothing was decided. */
  readonly holderState: HolderSessionState | null;
  /** Why, for the audit line (unlock-rule.ts). */
  readonly why: string;
  /** What happened, for the answer. */
  readonly summary: string;
  /** Epoch ms until which nobody else gets it at most; null: no tombstone on a majority. */
  readonly reservedUntil: number | null;
  /** delete-now: epoch ms until which two processes may act as holders. */
  readonly overlapPossibleUntil: number | null;
  /** The value stood (now a tombstone, or deleted) on a majority of the nodes. */
  readonly majority: boolean;
  /** Too few nodes answered for the write to reach a majority: the HTTP answer is 503. */
  readonly quorumUnavailable: boolean;
  /** The audit id of the tombstone this release lifted (delete-now of a tombstone); else null. */
  readonly lifted: string | null;
}

export interface SettleContext {
  /** What the rule was asked (null: nothing was decided: the value changed, or too few nodes). */
  readonly unlockCase: UnlockCase | null;
  readonly quorumSize: number;
  /** Decided before the write: too few nodes answered holding the value. */
  readonly quorumUnavailable: boolean;
  readonly holderState: HolderSessionState | null;
  readonly lifted: string | null;
}

/** The quorum-th largest PTTL of `nodes` with `outcomes`: how long they stand on a majority. */
function majorityPttlMs(
  nodes: readonly ForceReleaseNodeResult[],
  outcomes: ReadonlyArray<ForceReleaseNodeResult["outcome"]>,
  quorumSize: number,
): number | null {
  const pttls = nodes
    .filter((node) => outcomes.includes(node.outcome))
    .map((node) => node.pttlMs ?? 0)
    .sort((a, b) => b - a);
  return pttls.length >= quorumSize ? pttls[quorumSize - 1]! : null;
}

function modeOf(outcome: ForceReleaseOutcome, quorumUnavailable: boolean): ForceReleaseMode {
  if (outcome.valueChanged) return "unchanged";
  if (outcome.tombstonedCount > 0) return "tombstoned";
  if (outcome.deletedCount > 0) return "deleted";
  return outcome.reservedCount > 0 || outcome.hashCount > 0 || quorumUnavailable
    ? "unchanged"
    : "absent";
}

export function settleRelease(outcome: ForceReleaseOutcome, context: SettleContext): HolderRelease {
  const { unlockCase, quorumSize, holderState } = context;
  const nowMs = Date.now();
  const { nodes, deletedCount, tombstonedCount, reservedCount } = outcome;
  const stood = deletedCount + tombstonedCount + reservedCount;
  const unreachable = nodes.filter((node) => node.outcome === "unreachable").length;
  const majority = stood >= quorumSize;
  const quorumUnavailable =
    context.quorumUnavailable || (!majority && stood > 0 && stood + unreachable >= quorumSize);
  const reservedForMs = majorityPttlMs(nodes, ["tombstoned", "reserved"], quorumSize);
  const removedMs = Math.max(
    0,
    ...nodes.filter((n) => n.outcome === "deleted").map((n) => n.pttlMs ?? 0),
  );
  const mode = modeOf(outcome, quorumUnavailable);
  // Only a delete lifts a tombstone: one left standing was not lifted.
  const lifted = mode === "deleted" ? context.lifted : null;
  // Nothing written because a tombstone stood (force: true meets one on every node, too): say so.
  const standing = mode === "unchanged" && outcome.reservedCount > 0;
  const decision =
    unlockCase === null
      ? null
      : unlockRule({
          ...unlockCase,
          ...(standing && { format: "tombstone" as const, choice: "tombstone" as const }),
          nowMs,
          reservedForMs: mode === "deleted" ? removedMs : reservedForMs,
        });
  const base = {
    outcome,
    mode,
    holderState,
    reservedUntil: reservedForMs === null ? null : nowMs + reservedForMs,
    overlapPossibleUntil: mode === "deleted" && removedMs > 0 ? nowMs + removedMs : null,
    majority,
    quorumUnavailable,
    lifted,
  };
  const counts = `${describeCounts(outcome)} of ${nodes.length} node(s)`;
  const minority = majority
    ? ""
    : `; the value stood on ${stood} node(s) only, fewer than the ${quorumSize} of a majority: its holder's library counts a lock absent or replaced on a majority as lost`;
  const short = outcome.valueChanged
    ? "a node holds another value: nothing written"
    : quorumUnavailable && stood === 0
      ? `nothing written: only ${nodes.length - unreachable} node(s) answered, and the holder's majority needs ${quorumSize}`
      : mode === "absent"
        ? "no node holds it: nothing written"
        : null;
  const liftedWords =
    lifted === null ? "" : `lifts the tombstone of ${lifted || "an earlier force-release"}: `;
  const why = short ?? `${liftedWords}${decision?.audit ?? ""}: ${counts}${minority}`;
  const summary = short ?? `${liftedWords}${decision?.words ?? ""} (${counts})${minority}`;
  return { ...base, why, summary };
}

/** "tombstoned on 5", "deleted on 3", "already reserved on 2", comma-joined. */
export function describeCounts(
  outcome: Pick<ForceReleaseOutcome, "deletedCount" | "tombstonedCount" | "reservedCount">,
): string {
  const parts = [
    outcome.tombstonedCount > 0 ? `tombstoned on ${outcome.tombstonedCount}` : "",
    outcome.deletedCount > 0 ? `deleted on ${outcome.deletedCount}` : "",
    outcome.reservedCount > 0 ? `already reserved on ${outcome.reservedCount}` : "",
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(", ") : "written on 0";
}
