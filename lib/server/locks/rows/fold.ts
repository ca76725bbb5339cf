/**
 * Folds what each node holds for a resource into one row: the majority value, how many nodes hold
 * it (quorum), how long it stays on a majority (validityMs) and the state. Pure, so it is tested
 * on hand-built inputs as well as on real keys.
 */
import type {
  LockFlag,
  LockFormat,
  LockOwner,
  LockRow,
  LockState,
  NodeHolder,
  OwnerInfo,
  WaitersSummary,
} from "@/lib/api";
import type { NodeKeyState } from "../read/key-state";
import { isTombstone } from "../read/tombstone";

/** When a lock is flagged: thresholds in ms, measured at `serverTimeMs` (the snapshot's clock). */
export interface FlagThresholds {
  readonly serverTimeMs: number;
  readonly longHeldMs: number;
  readonly longWaitMs: number;
}

const NO_WAITERS: WaitersSummary = { count: 0, oldestSince: null };

/** Per node, in node order: its key state, `null` (absent) or `undefined` (node unreachable). */
export type NodeReads = ReadonlyArray<NodeKeyState | null | undefined>;

/** -1 (no expiry) sorts above every finite TTL. */
const ttlRank = (pttlMs: number) => (pttlMs < 0 ? Number.POSITIVE_INFINITY : pttlMs);

/**
 * How long `pttls` (the TTLs of the nodes holding one value) keep that value on a majority:
 * the quorumSize-th largest, since after it expires fewer than quorumSize nodes hold the value.
 */
export function majorityValidityMs(pttls: readonly number[], quorumSize: number): number | null {
  if (pttls.length < quorumSize) return null;
  const ranked = pttls.map(ttlRank).sort((a, b) => b - a);
  const validity = ranked[quorumSize - 1]!;
  return validity === Number.POSITIVE_INFINITY ? -1 : validity;
}

function stateOf(distinctValues: number, quorum: number, quorumSize: number): LockState {
  if (distinctValues > 1) return "conflict";
  return quorum >= quorumSize ? "held" : "partial";
}

/**
 * The owner of `value`: among the nodes holding it, the entry extended most (a node that missed an
 * extend lags behind; acquiredAt and labels are the same everywhere, written by one acquire).
 */
function ownerOf(reads: NodeReads, value: string, format: LockFormat): LockOwner {
  let best: OwnerInfo | null = null;
  for (const read of reads) {
    if (
      read?.value === value &&
      read.owner &&
      (!best || (read.owner.extensions ?? 0) > (best.extensions ?? 0))
    )
      best = read.owner;
  }
  return best ? { kind: "labelled", ...best } : { kind: "unknown", format };
}

/** Each contender registers on every node: the fullest list is the best count, the oldest entry wins. */
function waitersOf(reads: NodeReads): WaitersSummary {
  let count = 0;
  let oldestSince: number | null = null;
  for (const read of reads) {
    const waiters = read?.waiters ?? NO_WAITERS;
    count = Math.max(count, waiters.count);
    if (waiters.oldestSince !== null && (oldestSince === null || waiters.oldestSince < oldestSince))
      oldestSince = waiters.oldestSince;
  }
  return { count, oldestSince };
}

/** Why a lock needs a look. Without thresholds only what needs no clock (no TTL) is flagged. */
export function lockFlags(
  row: Pick<LockRow, "validityMs" | "heldSince" | "waiters">,
  thresholds?: FlagThresholds,
): LockFlag[] {
  const flags: LockFlag[] = [];
  if (thresholds && row.heldSince !== null) {
    if (thresholds.serverTimeMs - row.heldSince > thresholds.longHeldMs) flags.push("long-held");
  }
  if (row.validityMs === -1) flags.push("no-ttl");
  const { oldestSince } = row.waiters;
  if (
    thresholds &&
    oldestSince !== null &&
    thresholds.serverTimeMs - oldestSince > thresholds.longWaitMs
  )
    flags.push("long-wait");
  return flags;
}

/** The row of one resource, or null when no reachable node holds it. */
export function foldResource(
  resource: string,
  reads: NodeReads,
  nodeIds: readonly string[],
  quorumSize: number,
  thresholds?: FlagThresholds,
): Omit<LockRow, "resourceBase64"> | null {
  const byValue = new Map<string, number[]>();
  for (const read of reads) {
    if (read) byValue.set(read.value, [...(byValue.get(read.value) ?? []), read.pttlMs]);
  }
  if (byValue.size === 0) return null;
  // The majority value; a tie goes to the value that stays longest, then to the smaller value (stable).
  const longest = (pttls: number[]) => Math.max(...pttls.map(ttlRank));
  const descending = (a: number, b: number) => (a > b ? -1 : a < b ? 1 : 0);
  const [value, pttls] = [...byValue.entries()].sort(
    ([valueA, a], [valueB, b]) =>
      descending(a.length, b.length) ||
      descending(longest(a), longest(b)) ||
      (valueA < valueB ? -1 : 1),
  )[0]!;
  const nodes: NodeHolder[] = nodeIds.map((nodeId, index) => {
    const read = reads[index];
    return {
      nodeId,
      reachable: read !== undefined,
      value: read?.value ?? null,
      pttlMs: read?.pttlMs ?? null,
      format: read?.format ?? null,
      holdCount: read?.holdCount ?? null,
      owner: read?.owner ?? null,
    };
  });
  const format = reads.some((read) => read?.format === "redisson-hash")
    ? "redisson-hash"
    : "string";
  const owner = ownerOf(reads, value, format);
  const timing = {
    validityMs: majorityValidityMs(pttls, quorumSize),
    heldSince: owner.kind === "labelled" ? owner.acquiredAt : null,
    waiters: waitersOf(reads),
  };
  return withTombstone({
    resource,
    state: stateOf(byValue.size, pttls.length, quorumSize),
    value,
    format,
    quorum: pttls.length,
    quorumSize,
    nodes,
    owner,
    ...timing,
    flags: lockFlags(timing, thresholds),
  });
}

/**
 * A force-release's tombstone in place of the holder's value (docs/holder-sessions.md) keeps the
 * resource held until the holder acknowledges or the replaced value's validity ends: the row says
 * "releasing" (being released), never free. Different values on the nodes stay a conflict.
 */
function withTombstone(row: Omit<LockRow, "resourceBase64">): Omit<LockRow, "resourceBase64"> {
  if (row.state === "conflict" || row.value === null || !isTombstone(row.value)) return row;
  return {
    ...row,
    state: "releasing",
    format: "tombstone",
    owner: { kind: "unknown", format: "tombstone" },
  };
}
