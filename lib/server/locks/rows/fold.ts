/**
 * Folds what each node holds for a resource into one row: the majority value, how many nodes hold
 * it (quorum), how long it stays on a majority (validityMs) and the state, by the rules of
 * quorum.ts, plus the owner and flags. Pure, so it is tested on hand-built inputs as well as on
 * real keys.
 */
import type {
  LockFlag,
  LockFormat,
  LockOwner,
  LockRow,
  NodeHolder,
  OwnerInfo,
  SemaphoreSummary,
} from "@/lib/api";
import type { NodeKeyState } from "../read/key-state";
import { digestOf } from "../read/read-key";
import { isTombstone } from "../read/tombstone";
import { leadingValue, quorumExpiry, rowState, waitersOf, type PerNode } from "./quorum";

/** When a lock is flagged: thresholds in ms, measured at `serverTimeMs` (the snapshot's clock). */
export interface FlagThresholds {
  readonly serverTimeMs: number;
  readonly longHeldMs: number;
  readonly longWaitMs: number;
}

/** Per node, in node order: its key state, `null` (absent) or `undefined` (node unreachable). */
export type NodeReads = PerNode<NodeKeyState>;

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

const digests = new WeakMap<NodeKeyState, string>();

/** The digest of a node's whole value: from the read when it cut the value, else computed once. */
export function digestOfState(state: NodeKeyState): string {
  if (state.cut) return state.cut.digest;
  let digest = digests.get(state);
  if (digest === undefined) digests.set(state, (digest = digestOf(state.value)));
  return digest;
}

/** A node's value, digest and (when the read cut it) full size, as the API shows them. */
const valueOf = (read: NodeKeyState | null | undefined) =>
  read
    ? {
        value: read.value,
        valueDigest: digestOfState(read),
        ...(read.cut && { valueLength: read.cut.bytes }),
      }
    : { value: null, valueDigest: null };

/** The row of one resource, or null when no reachable node holds it. */
export function foldResource(
  resource: string,
  reads: NodeReads,
  nodeIds: readonly string[],
  quorumSize: number,
  thresholds?: FlagThresholds,
): Omit<LockRow, "resourceBase64"> | null {
  const leading = leadingValue(reads, (read) => read.pttlMs);
  if (!leading) return null;
  const { value, holders } = leading;
  const nodes: NodeHolder[] = nodeIds.map((nodeId, index) => {
    const read = reads[index];
    return {
      nodeId,
      reachable: read !== undefined,
      ...valueOf(read),
      pttlMs: read?.pttlMs ?? null,
      format: read?.format ?? null,
      holdCount: read?.holdCount ?? null,
      owner: read?.owner ?? null,
    };
  });
  const format = formatOf(reads);
  const owner = ownerOf(reads, value, format);
  const pttls = holders.map((holder) => holder.pttlMs);
  const timing = {
    validityMs: quorumExpiry(pttls, quorumSize),
    heldSince: owner.kind === "labelled" ? owner.acquiredAt : null,
    waiters: waitersOf(reads),
  };
  return withTombstone({
    resource,
    // Some node holds `value`, so the state is never null.
    state: rowState(reads, quorumSize)!,
    ...valueOf(reads.find((read) => read?.value === value)),
    format,
    quorum: holders.length,
    quorumSize,
    nodes,
    owner,
    ...timing,
    flags: lockFlags(timing, thresholds),
    ...(format === "redis-semaphore" && { semaphore: redisSemaphoreOf(reads) }),
  });
}

/** A row's format: a Redisson hash or redis-semaphore's set on any node says so; else a string. */
function formatOf(reads: NodeReads): LockFormat {
  for (const read of reads)
    if (read?.format === "redisson-hash" || read?.format === "redis-semaphore") return read.format;
  return "string";
}

/**
 * redis-semaphore's summary: its limit is not stored (null), its holders are the live members of
 * the node that lists the most (its Semaphore lives on one node; a RedlockSemaphore on each).
 */
function redisSemaphoreOf(reads: NodeReads): SemaphoreSummary {
  let used = 0;
  for (const read of reads)
    if (read?.format === "redis-semaphore") used = Math.max(used, read.holdCount ?? 0);
  return { kind: "redis-semaphore", permits: null, used };
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
