/**
 * Semaphores and read-write locks as one row each (issue 44): the fold of a group's members' rows
 * into the group's row, and the live index's memberships (GroupMemberships: which member keys each
 * group's row stands for, and each member's entry, so that a member has no row of its own). Which
 * keys are members is read/group-count.ts's rule; the index decides when a key joins or leaves
 * (live-index.ts).
 */
import type { LockRow, LockState, NodeHolder } from "@/lib/api";
import { BTree } from "./btree";
import type { RowEntry } from "./ownership-figures";
import { describeLatin1Key } from "../read/key-name";
import type { GroupKind, MemberShape, Membership } from "../read/group-count";
import { lockFlags, type FlagThresholds } from "./fold";

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

const stateOfEntry = (entry: RowEntry) => (typeof entry === "string" ? entry : entry.state);

/** A semaphore or read-write lock shown as one row: its kind and member keys. */
export interface Group {
  readonly kind: GroupKind;
  readonly members: Set<string>;
}

/**
 * The live index's memberships: which member keys each group's row stands for, and each member's
 * entry (its state and metric facts, as a row's), kept apart from the rows so that a member has no
 * row of its own. Bookkeeping only: the index decides when a key joins or leaves.
 */
export class GroupMemberships {
  /** Groups by their row key (groupRowKey). */
  readonly #groups = new Map<string, Group>();
  /** Each member key's group row key. */
  readonly #groupOf = new Map<string, string>();
  readonly #entries = new Map<string, RowEntry>();
  /** The member keys in byte order, for the walks of every lock key (LiveIndex.lockKeysFrom). */
  readonly #keys = new BTree<string, true>();

  /** The member keys in byte order from the first ≥ `low`, of `state` when given. */
  *keysFrom(low: string, state?: LockState): IterableIterator<string> {
    for (const key of this.#keys.keys(low))
      if (!state || stateOfEntry(this.#entries.get(key)!) === state) yield key;
  }

  /** The group whose row key is `rowKey`; undefined for any other key. */
  group(rowKey: string): Group | undefined {
    return this.#groups.get(rowKey);
  }

  /** The row key of the group `key` is a member of; undefined when it is none. */
  groupOf(key: string): string | undefined {
    return this.#groupOf.get(key);
  }

  /** A member's entry (its state and facts); undefined for a key that is no member. */
  entry(key: string): RowEntry | undefined {
    return this.#entries.get(key);
  }

  /** `key` joins (or stays in) the group `membership` names, with its entry now. */
  join(key: string, membership: Membership, entry: RowEntry): void {
    let group = this.#groups.get(membership.rowKey);
    if (!group) {
      group = { kind: membership.kind, members: new Set() };
      this.#groups.set(membership.rowKey, group);
    }
    group.members.add(key);
    this.#groupOf.set(key, membership.rowKey);
    this.#entries.set(key, entry);
    this.#keys.set(key, true);
  }

  /** `key` leaves its group (a group without members is forgotten); returns the group's row key. */
  leave(key: string): string | undefined {
    const rowKey = this.#groupOf.get(key);
    if (rowKey === undefined) return undefined;
    const group = this.#groups.get(rowKey);
    group?.members.delete(key);
    if (group?.members.size === 0) this.#groups.delete(rowKey);
    this.#groupOf.delete(key);
    this.#entries.delete(key);
    this.#keys.delete(key);
    return rowKey;
  }

  /** The state of a group's row from its members' (groupState); null when it has none left. */
  stateOf(rowKey: string): LockState | null {
    const members = this.#groups.get(rowKey)?.members ?? [];
    return groupState([...members].map((key) => stateOfEntry(this.#entries.get(key)!)));
  }
}
