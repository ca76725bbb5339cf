/**
 * Semaphores and read-write locks as one row each (issue 44): which keys are a group's members
 * (group-count.ts tells the shapes and reads the recorded count), the row key a group is kept
 * under, and the fold of its members' rows into the group's row. Pure: the live index keeps the
 * memberships (live-index.ts), and the tests build inputs by hand as well as from real keys.
 *
 * Exact by construction: a key is a member only when its shape is a member's AND a node records
 * the count beside it AND (for a permit or reader slot) its index is below that count. A lone
 * `{x}#0` without `redlock:semaphore:{x}` stays an ordinary lock, and so does `{x}#5` of a
 * semaphore of 3.
 */
import type { LockRow, LockState, NodeHolder } from "@/lib/api";
import { describeLatin1Key } from "../read/key-name";
import { memberShapeOf, type MemberShape } from "../read/group-count";
import { lockFlags, type FlagThresholds } from "./fold";

export type GroupKind = "semaphore" | "read-write";

/** A key's place in its group. */
export interface Membership {
  /** The group's row key in the index (groupRowKey). */
  readonly rowKey: string;
  readonly kind: GroupKind;
  readonly member: MemberShape;
}

/**
 * The row key a group is kept under: `{name}#` (a semaphore) or `{name}#rw` (a read-write lock),
 * beside its members in byte order, so a glob on the member keys (`{orders}*`) still finds it. No
 * member key has either name; an ordinary lock named exactly so is hidden by the group's row.
 */
export const groupRowKey = (kind: GroupKind, name: string): string =>
  kind === "semaphore" ? `{${name}}#` : `{${name}}#rw`;

/** The recorded count among the nodes' reads (the largest, should two disagree); null when none. */
export function recordedCount(
  reads: ReadonlyArray<{ readonly groupCount?: number | null } | null | undefined>,
): number | null {
  let count: number | null = null;
  for (const read of reads) {
    const recorded = read?.groupCount ?? null;
    if (recorded !== null && (count === null || recorded > count)) count = recorded;
  }
  return count;
}

/** The group `key` (latin1 of its bytes) belongs to, given what the nodes read; null: none. */
export function membershipOf(
  key: string,
  reads: ReadonlyArray<{ readonly groupCount?: number | null } | null | undefined>,
): Membership | null {
  const member = memberShapeOf(key);
  if (!member) return null;
  const count = recordedCount(reads);
  if (count === null) return null;
  if (member.kind !== "writer" && member.index >= count) return null;
  const kind: GroupKind = member.kind === "permit" ? "semaphore" : "read-write";
  return { rowKey: groupRowKey(kind, member.name), kind, member };
}

/** One state for a group: a conflict anywhere first, then held, then being released, then partial. */
export function groupState(states: Iterable<LockState>): LockState | null {
  const seen = new Set(states);
  for (const state of ["conflict", "held", "releasing", "partial"] as const)
    if (seen.has(state)) return state;
  return null;
}

/** A member's row, with its place in the group. */
export interface MemberRow {
  readonly member: MemberShape;
  readonly row: LockRow;
}

/** A member holds on a majority (a force-release's tombstone still holds: "releasing"). */
export const holdsOnMajority = (row: LockRow): boolean =>
  (row.state === "held" || row.state === "releasing") && row.quorum >= row.quorumSize;

/** The latest validity among the members holding (-1 when one never expires); null when none. */
function longestValidity(rows: readonly LockRow[]): number | null {
  const validities = rows.map((row) => row.validityMs).filter((ms) => ms !== null);
  if (validities.length === 0) return null;
  return validities.includes(-1) ? -1 : Math.max(...validities);
}

/**
 * A group's row from its members' rows (each folded as an ordinary lock). The value and owner are
 * the members' (shown per permit on the lock's page): the row carries the summary, the earliest
 * acquisition, the latest validity and the waiters of all.
 */
export function foldGroup(
  kind: GroupKind,
  name: string,
  count: number,
  members: readonly MemberRow[],
  nodeIds: readonly string[],
  quorumSize: number,
  thresholds?: FlagThresholds,
): LockRow | null {
  const state = groupState(members.map(({ row }) => row.state));
  if (state === null) return null;
  const holding = members.filter(({ row }) => holdsOnMajority(row));
  const rows = members.map(({ row }) => row);
  const nodes: NodeHolder[] = nodeIds.map((nodeId, index) => ({
    nodeId,
    reachable: rows.every((row) => row.nodes[index]?.reachable !== false),
    value: null,
    valueDigest: null,
    pttlMs: null,
    format: null,
    holdCount: null,
    owner: null,
  }));
  const since = rows.map((row) => row.heldSince).filter((at) => at !== null);
  const oldestWaits = rows.map((row) => row.waiters.oldestSince).filter((at) => at !== null);
  const timing = {
    validityMs: longestValidity(holding.map(({ row }) => row)),
    heldSince: since.length > 0 ? Math.min(...since) : null,
    waiters: {
      count: rows.reduce((sum, row) => sum + row.waiters.count, 0),
      oldestSince: oldestWaits.length > 0 ? Math.min(...oldestWaits) : null,
    },
  };
  const summary =
    kind === "semaphore"
      ? { semaphore: { kind: "redlock" as const, permits: count, used: holding.length } }
      : {
          readWrite: {
            readerSlots: count,
            readers: holding.filter(({ member }) => member.kind === "reader").length,
            writer: holding.some(({ member }) => member.kind === "writer"),
          },
        };
  return {
    ...describeLatin1Key(members[0]!.member.name),
    state,
    value: null,
    valueDigest: null,
    format: "string",
    quorum: Math.max(...rows.map((row) => row.quorum)),
    quorumSize,
    nodes,
    owner: { kind: "unknown", format: "string" },
    ...timing,
    flags: lockFlags(timing, thresholds),
    ...summary,
  };
}
