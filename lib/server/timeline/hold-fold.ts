/**
 * The rules of one lock's hold, as the timeline folds it from per-node changes: a hold begins when
 * a value reaches a majority, is extended when its quorum expiry moves later, and ends when the
 * value leaves the majority: force-released when this console marked it or a force-release's
 * tombstone replaced it, else expired or released by why the nodes lost it. A tombstone on a
 * majority is followed the same way, as a reservation, not a hold (reservation.ts says how it ends).
 * The timeline (timeline.ts) keeps the holds and emits the transitions; these rules are tested as
 * tables in test/server/timeline-rules.test.ts.
 */
import type { OwnerInfo, TransitionKind } from "@/lib/api";
import type { Reads } from "../locks/rows/live-index";
import type { IndexedState, RemovalCause } from "../locks/watch/store/node-store";
import { ownerOfValue } from "../locks/read/ownership";
import { decodeTombstone } from "../locks/read/tombstone";
import { majorityValue, quorumExpiry, waitersOf } from "../locks/rows/quorum";

/** A force-release's tombstone, decoded: who laid it, why, its audit entry, the replaced value's token. */
export type Tombstone = NonNullable<ReturnType<typeof decodeTombstone>>;

/** An expiry that moved later by less than this is read jitter, not an extension. */
const EXTENSION_MIN_MS = 250;

export interface Hold {
  readonly value: string;
  /**
   * An owner the value does not carry: a 1.x owner entry's or a cut value's, or for a reservation
   * the owner of the hold its tombstone replaced; null otherwise. An `rl1:` value's owner is decoded
   * when a transition needs it (ownerOf), not kept per hold: ~150 bytes each at 100k holds.
   */
  readonly ownerApart: OwnerInfo | null;
  /** When the hold began: its owner's acquiredAt, else when it reached a majority (a reservation: when its tombstone was laid). */
  readonly sinceMs: number;
  /** The quorum-th latest expiry of the value (console clock); Infinity without a TTL. */
  expiresAtMs: number;
  /** The most contenders seen waiting during the hold. */
  waiters: number;
  /**
   * Per node, why it lost the value, once it did. Until the first loss, a frozen array shared by
   * every hold (noLosses); the first loss replaces it with the hold's own (recordNodeChange).
   */
  causes: Array<RemovalCause | undefined>;
  /**
   * Per node, whether it was read holding the value: only such a node can lose it. A node that
   * held another value when the hold began, and is read after the others, lost nothing. Held on
   * every node (nearly every hold, once all nodes are read), a frozen array shared by every hold.
   */
  heldOn: boolean[];
  /** Set when the value is a force-release's tombstone: a reservation, not a hold. */
  readonly tombstone: Tombstone | null;
}

/**
 * A force-release this console makes. `values`: the values it deleted or replaced (the one the
 * operator saw while its write is under way); null while the write of a force: any (no value read)
 * is under way. Once the write answers, the mark is settled to what it removed, or dropped when it
 * removed nothing (force-marks.ts `settle`): a mark never explains another value's end.
 */
export interface ForceMark {
  readonly by: string;
  readonly reason: string | null;
  readonly atMs: number;
  readonly values: readonly string[] | null;
  /** The force-release's audit entry, when the caller knows it before writing. */
  readonly auditId?: string | null;
}

export type EndKind = Extract<
  TransitionKind,
  "released" | "expired" | "force-released" | "evicted"
>;

const expiresAtOf = (read: IndexedState) => read.expiresAtMs;

/**
 * The per-node arrays most holds share, frozen, by node count: no loss yet, and held on every node.
 * A hold of its own per node and per hold cost ~16 MB at 100k locks × 5 nodes (two arrays of five
 * per hold) to say nothing; a write to a shared one throws (modules are strict), so none is missed.
 */
const noLosses: Array<RemovalCause | undefined>[] = [];
const heldEverywhere: boolean[][] = [];
const sharedArray = <T>(cache: T[][], nodes: number, fill: T): T[] =>
  (cache[nodes] ??= Object.freeze(new Array<T>(nodes).fill(fill)) as T[]);

/**
 * A quorum expiry as the hold keeps it: Infinity for none, so that "later" is a plain comparison;
 * 0 when fewer than a quorum hold the value, which the callers rule out (they ask on a majority).
 */
const asInstant = (expiry: number | null) =>
  expiry === null ? 0 : expiry < 0 ? Number.POSITIVE_INFINITY : expiry;

/** The hold of the value on a majority of `reads`, as seen at `nowMs`; null when no value is. */
export function majorityHold(reads: Reads, quorumSize: number, nowMs: number): Hold | null {
  const majority = majorityValue(reads, quorumSize, expiresAtOf);
  if (!majority) return null;
  const first = majority.holders[0]!;
  const tombstone = first.format === "tombstone" ? decodeTombstone(first.value) : null;
  const owner = tombstone ? null : (first.legacyOwner ?? ownerOfValue(first.value));
  return {
    value: first.value,
    ownerApart: tombstone ? null : first.legacyOwner,
    // A reservation begins when the console laid it: its `at`.
    sinceMs: tombstone?.at ?? owner?.acquiredAt ?? nowMs,
    expiresAtMs: asInstant(quorumExpiry(majority.holders.map(expiresAtOf), quorumSize)),
    waiters: waitersOf(reads).count,
    causes: sharedArray(noLosses, reads.length, undefined),
    heldOn: heldOnOf(reads, first.value),
    tombstone,
  };
}

/** The owner of `hold`: kept apart, or decoded from its value (none for a reservation's own). */
export const ownerOf = (hold: Pick<Hold, "value" | "ownerApart" | "tombstone">): OwnerInfo | null =>
  hold.ownerApart ?? (hold.tombstone ? null : ownerOfValue(hold.value));

/** Which of `reads` hold `value`: the shared array when all do. */
function heldOnOf(reads: Reads, value: string): boolean[] {
  const heldOn = reads.map((read) => read?.value === value);
  return heldOn.includes(false) ? heldOn : sharedArray(heldEverywhere, reads.length, true);
}

/**
 * The cause to record for node `nodeIndex` after it changed to `read`: the first time a node that
 * held the hold's value no longer holds it, why (its keyspace event, "unknown" when none came:
 * polled, or a delete and a new value within one read); null when there is nothing new to record.
 * A node never read holding the value loses nothing: whether its read of another value lands before
 * the hold began or after is chance (nodes are read apart), and a late one would otherwise count as
 * a delete (`endKind`: an eviction on one of the two holding nodes would end as a release).
 */
export function lossCause(
  hold: Hold,
  read: IndexedState | null | undefined,
  nodeIndex: number,
  cause: RemovalCause | undefined,
): RemovalCause | null {
  if (nodeIndex < 0 || read?.value === hold.value || hold.causes[nodeIndex] !== undefined)
    return null;
  return hold.heldOn[nodeIndex] ? (cause ?? "unknown") : null;
}

/** Records node `nodeIndex`'s change to `read` on `hold`: that it holds the value, or its loss. */
export function recordNodeChange(
  hold: Hold,
  read: IndexedState | null | undefined,
  nodeIndex: number,
  cause: RemovalCause | undefined,
): void {
  if (nodeIndex >= 0 && read?.value === hold.value && !hold.heldOn[nodeIndex]) {
    hold.heldOn[nodeIndex] = true;
    // The last node read holding it: back to the shared array.
    if (!hold.heldOn.includes(false))
      hold.heldOn = sharedArray(heldEverywhere, hold.heldOn.length, true);
  }
  const loss = lossCause(hold, read, nodeIndex, cause);
  if (!loss) return;
  if (Object.isFrozen(hold.causes)) hold.causes = [...hold.causes];
  hold.causes[nodeIndex] = loss;
}

/**
 * The hold's new expiry when `reads` (on which it is still on a majority) extended it, else null:
 * its quorum expiry moved later by more than read jitter.
 */
export function extendedTo(hold: Hold, reads: Reads, quorumSize: number): number | null {
  const expiries: number[] = [];
  for (const read of reads) if (read?.value === hold.value) expiries.push(read.expiresAtMs);
  const expiresAtMs = asInstant(quorumExpiry(expiries, quorumSize));
  return expiresAtMs > hold.expiresAtMs + EXTENSION_MIN_MS ? expiresAtMs : null;
}

/**
 * How many nodes lost the value by expiry, by delete and by eviction (a loss without its event:
 * see endKind).
 */
export function lossTally(
  hold: Pick<Hold, "expiresAtMs" | "causes">,
  nowMs: number,
): { expired: number; deleted: number; evicted: number } {
  let expired = 0;
  let deleted = 0;
  let evicted = 0;
  for (const cause of hold.causes) {
    const known = cause === "unknown" ? (hold.expiresAtMs <= nowMs ? "expired" : "deleted") : cause;
    if (known === "expired") expired += 1;
    else if (known === "deleted") deleted += 1;
    else if (known === "evicted") evicted += 1;
  }
  return { expired, deleted, evicted };
}

/**
 * Whether `mark` is this console's force-release of `hold`'s value: one of the values it removed.
 * While a force: any write is under way (no value read yet), only a hold some node lost by a
 * delete can be its doing; an expiry or an eviction never is.
 */
export const marks = (
  mark: ForceMark | undefined,
  hold: Pick<Hold, "value" | "causes">,
): mark is ForceMark =>
  mark !== undefined &&
  (mark.values === null ? hold.causes.includes("deleted") : mark.values.includes(hold.value));

/**
 * How a hold ended once its value left the majority, at `nowMs`: force-released when this console
 * removed that very value (`mark`) or a force-release's tombstone replaced it (`tombstone`: the one
 * found on the nodes, whichever console laid it); else by the cause most nodes lost it to: expired,
 * evicted (the holder may still believe it holds the lock), or released. An eviction is never a
 * release: "evicted" when evictions outnumber deletes (a hold on two nodes of three that one node
 * evicted); a release under way after an eviction on a minority (one delete seen, one eviction)
 * stays "released"; a tie with expiries goes to the expiry. A loss without its event counts as an
 * expiry once the hold's validity ran out, else as a delete: only a delete (or an eviction, which
 * sends its event) removes a value before then.
 */
export function endKind(
  hold: Pick<Hold, "value" | "expiresAtMs" | "causes">,
  mark: ForceMark | undefined,
  nowMs: number,
  tombstone: Tombstone | null = null,
): EndKind {
  if (tombstone || marks(mark, hold)) return "force-released";
  const { expired, deleted, evicted } = lossTally(hold, nowMs);
  if (expired > 0 && expired >= deleted && expired >= evicted) return "expired";
  return evicted > deleted ? "evicted" : "released";
}

/** How `hold` ended at `nowMs`, and the fields of its transition. */
export interface HoldEnd {
  readonly kind: EndKind;
  /** An expiry ended when the hold's validity ran out (the nodes' events may come later). */
  readonly endMs: number;
  readonly heldMs: number;
  /** force-released: who did it and why (the tombstone's, else the mark's); null otherwise. */
  readonly by: string | null;
  readonly reason: string | null;
  readonly auditId: string | null;
}

export function holdEnd(
  hold: Hold,
  mark: ForceMark | undefined,
  nowMs: number,
  tombstone: Tombstone | null = null,
): HoldEnd {
  const kind = endKind(hold, mark, nowMs, tombstone);
  const endMs =
    kind === "expired" && Number.isFinite(hold.expiresAtMs)
      ? Math.min(nowMs, hold.expiresAtMs)
      : nowMs;
  const forced = kind === "force-released";
  const marked = marks(mark, hold) ? mark : undefined;
  return {
    kind,
    endMs,
    heldMs: Math.max(0, endMs - hold.sinceMs),
    by: forced ? (tombstone?.by ?? marked?.by ?? null) : null,
    reason: forced ? (tombstone?.reason ?? marked?.reason ?? null) : null,
    auditId: forced ? (tombstone?.auditId ?? marked?.auditId ?? null) : null,
  };
}
