import "server-only";
/**
 * The console's live index of every lock on every node: one watch per node (node-watches.ts) keeps
 * that node's keys current, and this file keeps the rows — one per resource, ordered by the
 * key's bytes in a B+ tree, plus one tree per state — as the nodes change, so a page is a walk of
 * `limit` rows from the cursor, and totals and counts are tree sizes. Rows are folded (fold-nodes.ts)
 * only when a page shows them: their TTLs are then computed from the expiry instants the nodes reported.
 * Viewers never cause a read of a node: the index is read from memory, whatever the number of them.
 * Over 300 lines, one job: keep the rows current and tell registered handlers; paging, folding,
 * refolds, the handler queues and the groups' memberships (groups.ts) live in their own files.
 * What follows the changes (the timeline, contention, the ownership figures) registers a handler
 * (`addHandler`, index-handlers.ts), told off the watch's call stack: none of them delays the index.
 */
import { BTree } from "./btree";
import type { Listing, LockCounts, LockRow, LockState, NodeIndex } from "@/lib/api";
import type { ConsoleNode } from "../../node-registry";
import type { FlagThresholds } from "./fold";
import { foldIndexed } from "./fold-nodes";
import { foldGroup, GroupMemberships, type Group, type MemberRow } from "./groups";
import { memberShapeOf, membershipOf, recordedCount, type Membership } from "../read/group-count";
import {
  HandlerQueue,
  type HandlerOptions,
  type HandlerRegistration,
  type IndexEvent,
  type IndexHandler,
  type Reads,
} from "./index-handlers";
import { entryOf, factsOf, type RowEntry } from "./ownership-figures";
import { rowState } from "./quorum";
import { refoldInSlices } from "./refold";
import { ClusterWatch } from "../watch/node/cluster-watch";
import type { LockWatch } from "../watch/node/lock-watch";
import type { RemovalCause } from "../watch/store/node-store";
import { watchesOf, type WatchSettings } from "./node-watches";
import { skippedShapesOf } from "./skipped-shapes";

export interface LiveIndexOptions extends WatchSettings {
  readonly quorumSize: number;
  readonly longHeldMs: number;
  readonly longWaitMs: number;
}

export type { IndexChange, IndexHandler, HandlerRegistration, Reads } from "./index-handlers";

const STATES: readonly LockState[] = ["held", "partial", "conflict", "releasing"];
/** How often expired states are dropped when no page asks. */
const SWEEP_INTERVAL_MS = 100;

const stateOfEntry = (entry: RowEntry) => (typeof entry === "string" ? entry : entry.state);
const factsOfEntry = (entry: RowEntry | undefined) => (typeof entry === "object" ? entry : null);

/**
 * The row's state by the quorum rule (quorum.ts), except that a force-release's tombstone held
 * without conflict is "releasing" (fold.ts's withTombstone): being released, never free.
 */
function stateOf(reads: Reads, quorumSize: number): LockState | null {
  const state = rowState(reads, quorumSize);
  if (state !== "held" && state !== "partial") return state;
  return reads.find((read) => read)?.format === "tombstone" ? "releasing" : state;
}

export class LiveIndex {
  /** Per node, in node order: a single server's watch, or a cluster's (one watch per primary). */
  readonly watches: readonly LockWatch[];
  readonly #nodes: readonly ConsoleNode[];
  readonly #options: LiveIndexOptions;
  readonly #rows = new BTree<string, RowEntry>();
  readonly #byState = Object.fromEntries(
    STATES.map((state) => [state, new BTree<string, true>()]),
  ) as Record<LockState, BTree<string, true>>;
  readonly #sweeper: NodeJS.Timeout;
  /** Bumped on every row change: caches of filtered totals are valid for one version. */
  #version = 0;
  /** Bumped on every change of a key on a node (IndexChange.seq). */
  #changeCount = 0;
  /** The registered handlers (index-handlers.ts): each told of every change off this call stack. */
  readonly #handlers = new Set<HandlerQueue>();
  readonly #nodeIds: readonly string[];
  /** Bumped when a re-fold of every row starts (or the index closes): an older one stops. */
  #refoldRun = 0;
  /**
   * Semaphores and read-write locks (groups.ts): a member key has no row of its own, its group's
   * row (under the group's row key) stands for it; its entry is kept there, for the handlers' facts.
   */
  readonly #groups = new GroupMemberships();

  constructor(nodes: readonly ConsoleNode[], options: LiveIndexOptions) {
    this.#nodes = nodes;
    this.#nodeIds = nodes.map((node) => node.id);
    this.#options = options;
    this.watches = watchesOf(nodes, options, (nodeIndex) => ({
      onChange: (key, _state, cause) => this.#update(key, nodeIndex, cause),
      shared: (name, value) => this.#shared(name, value),
      onReachability: () => this.#updateAll(),
      onGap: (sinceMs) => this.#emit({ kind: "gap", sinceMs }),
      onBrief: (key, holds) =>
        this.#emit({ kind: "brief", key, nodeIndex, holds, atMs: Date.now() }),
    }));
    this.#sweeper = setInterval(() => {
      this.sweep();
      this.#emit({ kind: "tick", atMs: Date.now(), complete: this.complete });
    }, SWEEP_INTERVAL_MS);
  }

  /**
   * Registers `handler`, told of every change from now on, off the watch's call stack, through a
   * queue of its own (index-handlers.ts: how a slow handler lags and what it loses), starting with
   * a tick. What the index held before is read from it (`reads`, `keysFrom`), as the timeline's
   * re-read does: changes counted up to that read (`changeCount`) are already in it.
   */
  addHandler(handler: IndexHandler, options: HandlerOptions = {}): HandlerRegistration {
    const queue: HandlerQueue = new HandlerQueue(
      handler,
      options,
      () => this.complete,
      () => this.#handlers.delete(queue),
    );
    this.#handlers.add(queue);
    // A first tick at once: a handler that reads the index (the timeline) reads it before any
    // change queued after this one, not at the sweeper's next turn.
    queue.push({ kind: "tick", atMs: Date.now(), complete: this.complete });
    return queue;
  }

  get quorumSize(): number {
    return this.#options.quorumSize;
  }

  get nodeIds(): readonly string[] {
    return this.#nodeIds;
  }

  /** What each node holds under `key`: its state, null (absent) or undefined (unreachable). */
  reads(key: string): Reads {
    return this.#reads(key);
  }

  get version(): number {
    return this.#version;
  }

  /** How many changes the index has applied: a handler's change `seq` is one of these. */
  get changeCount(): number {
    return this.#changeCount;
  }

  get size(): number {
    return this.#rows.size;
  }

  counts(): LockCounts {
    return {
      held: this.#byState.held.size,
      partial: this.#byState.partial.size,
      conflict: this.#byState.conflict.size,
      releasing: this.#byState.releasing.size,
    };
  }

  /** Drops what expired on the nodes by now, so rows, totals and counts agree with the clock. */
  sweep(nowMs = Date.now()): void {
    for (const watch of this.watches) watch.sweep(nowMs);
  }

  /**
   * The row keys of `state` (all rows without one), in byte order, from the first key ≥ `low`: what
   * pages show, a semaphore's or read-write lock's row key in place of its members' keys.
   */
  keysFrom(low: string, state?: LockState): IterableIterator<string> {
    const tree: BTree<string, unknown> = state ? this.#byState[state] : this.#rows;
    return tree.keys(low);
  }

  /**
   * Every lock key of `state` (all without one), in byte order, from the first ≥ `low`: the members
   * of semaphores and read-write locks included, their groups' row keys not. What walks the nodes'
   * holds (the timeline's re-read, a restart's margins) reads, since a group's row key has no reads.
   */
  *lockKeysFrom(low: string, state?: LockState): IterableIterator<string> {
    const rows = this.keysFrom(low, state);
    const members = this.#groups.keysFrom(low, state);
    let row = rows.next();
    let member = members.next();
    while (!row.done || !member.done) {
      if (!row.done && (member.done || row.value < member.value)) {
        if (!this.#groups.group(row.value)) yield row.value;
        row = rows.next();
      } else {
        yield member.value!;
        member = members.next();
      }
    }
  }

  /** How many rows (of `state`) there are. */
  total(state?: LockState): number {
    return state ? this.#byState[state].size : this.#rows.size;
  }

  /**
   * The row of `key` (latin1 of its bytes) folded at `nowMs`; null when no node holds it. A group's
   * row key gives the group's row; a member's key its own row, as an ordinary lock's.
   */
  row(key: string, nowMs: number): LockRow | null {
    const thresholds: FlagThresholds = {
      serverTimeMs: nowMs,
      longHeldMs: this.#options.longHeldMs,
      longWaitMs: this.#options.longWaitMs,
    };
    const group = this.#groups.group(key);
    if (group) return this.#groupRow(group, thresholds);
    return foldIndexed(key, this.#reads(key), this.#nodeIds, this.#options.quorumSize, thresholds);
  }

  #groupRow(group: Group, thresholds: FlagThresholds): LockRow | null {
    const members: MemberRow[] = [];
    let count: number | null = null;
    for (const key of [...group.members].sort()) {
      const reads = this.#reads(key);
      const member = memberShapeOf(key);
      const row = foldIndexed(key, reads, this.#nodeIds, this.#options.quorumSize, thresholds);
      count = Math.max(count ?? 0, recordedCount(reads) ?? 0);
      if (member && row) members.push({ member, row });
    }
    if (members.length === 0 || !count) return null;
    const { quorumSize } = this.#options;
    return foldGroup(
      group.kind,
      members[0]!.member.name,
      count,
      members,
      this.#nodeIds,
      quorumSize,
      thresholds,
    );
  }

  /** True when the index covers the key: every reachable node is listed and follows changes. */
  get complete(): boolean {
    return this.watches.every((watch) => !watch.reachable || watch.complete);
  }

  listing(): Listing {
    const statuses = this.watches.map((watch, index) => ({
      nodeId: this.#nodes[index]!.id,
      status: watch.status(),
    }));
    return {
      complete: this.complete,
      nodes: statuses.map(({ nodeId, status }) => ({
        nodeId,
        mode: status.mode,
        asOf: status.asOf,
        fraction: status.listing?.fraction ?? null,
      })),
      skippedShapes: skippedShapesOf(statuses),
    };
  }

  /** The nodes polled now (no keyspace events), and about how late a change shows on each. */
  sampled(): Array<{ nodeId: string; everyMs: number | null }> {
    return this.watches.flatMap((watch, index) => {
      const status = watch.status();
      if (status.mode !== "polling") return [];
      return [{ nodeId: this.#nodes[index]!.id, everyMs: status.polling?.changesWithinMs ?? null }];
    });
  }

  nodeStatus(index: number): NodeIndex {
    return this.watches[index]!.status();
  }

  /** The watch of node `index` when it is a cluster (its primaries, topology); null for a single server. */
  clusterOf(index: number): ClusterWatch | null {
    const watch = this.watches[index];
    return watch instanceof ClusterWatch ? watch : null;
  }

  unreachableNodes(): string[] {
    return this.#nodes.filter((_, index) => !this.watches[index]!.reachable).map((node) => node.id);
  }

  get truncated(): boolean {
    return this.watches.some((watch) => watch.truncated);
  }

  /**
   * Resolves once every change made on the nodes before the call is in the index (see
   * NodeWatch.sync) and every handler has been told of it.
   */
  async sync(): Promise<void> {
    await Promise.all(this.watches.map((watch) => watch.sync()));
    await Promise.all([...this.#handlers].map((queue) => queue.drained()));
  }

  /**
   * Reads `key` on every node into the index now (the lock page's fresh read found a lock the index
   * lacked); resolves once its row is current. A node that fails the read keeps what it had.
   */
  async heal(key: string): Promise<void> {
    await Promise.all(this.watches.map((watch) => watch.reread(key).catch(() => {})));
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#refoldRun += 1;
    for (const queue of this.#handlers) queue.remove();
    await Promise.all(this.watches.map((watch) => watch.close()));
  }

  #reads(key: string): Reads {
    return this.watches.map((watch) => watch.read(key));
  }

  /** The key name and value instances another node already holds, when equal (see NodeWatchOptions.shared). */
  #shared(name: string, value: string): { name: string; value: string } {
    const pair = this.#rows.getPairOrNextHigher(name);
    const sharedName = pair && pair[0] === name ? pair[0] : name;
    for (const watch of this.watches) {
      const held = watch.get(name);
      if (held?.value === value) return { name: sharedName, value: held.value };
    }
    return { name: sharedName, value };
  }

  #emit(event: IndexEvent): void {
    for (const queue of this.#handlers) queue.push(event);
  }

  #update(key: string, nodeIndex = -1, cause?: RemovalCause): void {
    const group = this.#groups.group(key);
    // A re-fold reached a group's row: its members are what the nodes hold.
    if (group) {
      for (const member of [...group.members]) this.#update(member, nodeIndex, cause);
      return;
    }
    const reads = this.#reads(key);
    const next = stateOf(reads, this.#options.quorumSize);
    const seq = ++this.#changeCount;
    const groupKey = this.#groups.groupOf(key);
    const entry = groupKey === undefined ? this.#rows.get(key) : this.#groups.entry(key);
    const previous = entry === undefined ? null : stateOfEntry(entry);
    const facts = next === null ? null : factsOf(reads, this.#options.quorumSize);
    if (this.#handlers.size > 0) {
      const factsBefore = factsOfEntry(entry);
      const atMs = Date.now();
      const change = {
        key,
        reads,
        state: next,
        nodeIndex,
        cause,
        factsBefore,
        factsAfter: facts,
        atMs,
        seq,
        complete: this.complete,
      };
      this.#emit({ kind: "change", change });
    }
    const membership = next === null ? null : membershipOf(key, reads);
    if (groupKey !== undefined || membership) {
      this.#updateMember(key, groupKey, membership, membership && entryOf(next!, facts));
      // It was an ordinary row until now: that row goes, the group's stands for it.
      if (groupKey === undefined) this.#setRow(key, previous, null, entry, null);
      // Still held, no longer a member (its count key went first): an ordinary row again.
      else if (!membership && next !== null) this.#setRow(key, null, next, undefined, facts);
      return;
    }
    this.#setRow(key, previous, next, entry, facts);
  }

  /** Moves the row of `key` from state `previous` to `next` (null: no row). */
  #setRow(
    key: string,
    previous: LockState | null,
    next: LockState | null,
    entry: RowEntry | undefined,
    facts: ReturnType<typeof factsOf>,
  ): void {
    if (next !== previous) {
      this.#version += 1;
      if (previous) this.#byState[previous].delete(key);
      if (next) this.#byState[next].set(key, true);
    }
    if (next === null) {
      if (entry !== undefined) this.#rows.delete(key);
    } else if (next !== previous || facts || typeof entry === "object") {
      this.#rows.set(key, entryOf(next, facts));
    }
  }

  /**
   * A member key changed: it leaves its former group (`formerGroupKey`) unless it stays there, joins
   * the one of `membership` (null: it is no member now), and both groups' rows change state.
   */
  #updateMember(
    key: string,
    formerGroupKey: string | undefined,
    membership: Membership | null,
    entry: RowEntry | null,
  ): void {
    if (formerGroupKey !== undefined && formerGroupKey !== membership?.rowKey) {
      this.#groups.leave(key);
      this.#refreshGroup(formerGroupKey);
    }
    if (!membership || !entry) return;
    this.#groups.join(key, membership, entry);
    this.#refreshGroup(membership.rowKey);
  }

  /** A group's row moves to its members' state; it goes with its last member. */
  #refreshGroup(rowKey: string): void {
    const entry = this.#rows.get(rowKey);
    const previous = entry === undefined ? null : stateOfEntry(entry);
    this.#setRow(rowKey, previous, this.#groups.stateOf(rowKey), entry, null);
  }

  /** A node came or went: every row's view of it changed (re-folded in slices: refold.ts). */
  #updateAll(): void {
    const run = ++this.#refoldRun;
    void refoldInSlices(
      {
        rowKeys: (low) => this.#rows.keys(low),
        hasRow: (key) => this.#rows.has(key) || this.#groups.groupOf(key) !== undefined,
        nodeKeys: () => this.watches.map((watch) => watch.keys()),
        update: (key) => this.#update(key),
      },
      () => run === this.#refoldRun,
    );
  }
}
