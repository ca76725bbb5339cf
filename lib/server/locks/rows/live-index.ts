import "server-only";
/**
 * The console's live index of every lock on every node: one watch per node (node-watches.ts) keeps
 * that node's keys current, and this file keeps the rows — one per resource, ordered by the
 * key's bytes in a B+ tree, plus one tree per state — as the nodes change, so a page is a walk of
 * `limit` rows from the cursor, and totals and counts are tree sizes. Rows are folded (fold-nodes.ts)
 * only when a page shows them: their TTLs are then computed from the expiry instants the nodes reported.
 * Viewers never cause a read of a node: the index is read from memory, whatever the number of them.
 */
import { BTree } from "./btree";
import type { Listing, LockCounts, LockRow, LockState, NodeIndex } from "@/lib/api";
import type { ConsoleNode } from "../../node-registry";
import type { FlagThresholds } from "./fold";
import { foldIndexed } from "./fold-nodes";
import {
  entryOf,
  factsOf,
  FiguresTally,
  type OwnershipFigures,
  type RowEntry,
} from "./ownership-figures";
import { rowState } from "./quorum";
import { refoldInSlices } from "./refold";
import { ClusterWatch } from "../watch/cluster-watch";
import type { LockWatch } from "../watch/lock-watch";
import type { IndexedState, RemovalCause } from "../watch/node-store";
import { watchesOf, type WatchSettings } from "./node-watches";

export interface LiveIndexOptions extends WatchSettings {
  readonly quorumSize: number;
  readonly longHeldMs: number;
  readonly longWaitMs: number;
}

/** Per node, in node order: its state, null (absent) or undefined (unreachable). */
export type Reads = ReadonlyArray<IndexedState | null | undefined>;

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

/** Told of every per-node change while it happens (the timeline), and ticked with the sweeper. */
export interface IndexObserver {
  /** `state`: the row's state after the change (null: no node holds the key). */
  observe(
    key: string,
    reads: Reads,
    state: LockState | null,
    nodeIndex: number,
    cause: RemovalCause | undefined,
  ): void;
  tick(): void;
  /** A node's changes since `sinceMs` may have been missed (it is being relisted). */
  gap(sinceMs: number): void;
  /** `holds` values came and went on the node between two reads of `key`. */
  brief(key: string, nodeIndex: number, holds: number): void;
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
  #observer: IndexObserver | null = null;
  #waitListener: ((key: string, reads: Reads) => void) | null = null;
  readonly #nodeIds: readonly string[];
  readonly #tally: FiguresTally;
  /** Bumped when a re-fold of every row starts (or the index closes): an older one stops. */
  #refoldRun = 0;

  constructor(nodes: readonly ConsoleNode[], options: LiveIndexOptions) {
    this.#nodes = nodes;
    this.#nodeIds = nodes.map((node) => node.id);
    this.#options = options;
    this.#tally = new FiguresTally(options);
    this.watches = watchesOf(nodes, options, (nodeIndex) => ({
      onChange: (key, _state, cause) => this.#update(key, nodeIndex, cause),
      shared: (name, value) => this.#shared(name, value),
      onReachability: () => this.#updateAll(),
      onGap: (sinceMs) => this.#observer?.gap(sinceMs),
      onBrief: (key, holds) => this.#observer?.brief(key, nodeIndex, holds),
    }));
    this.#sweeper = setInterval(() => {
      this.sweep();
      this.#observer?.tick();
    }, SWEEP_INTERVAL_MS);
  }

  /** Sets the one observer (the timeline) told of every change from now on. */
  observe(observer: IndexObserver): void {
    this.#observer = observer;
  }

  /** Sets the one listener told of every key change, waiters included (the contention tracker). */
  listenWaits(listener: (key: string, reads: Reads) => void): void {
    this.#waitListener = listener;
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

  /** The row keys of `state` (all rows without one), in byte order, from the first key ≥ `low`. */
  keysFrom(low: string, state?: LockState): IterableIterator<string> {
    const tree: BTree<string, unknown> = state ? this.#byState[state] : this.#rows;
    return tree.keys(low);
  }

  /** How many rows (of `state`) there are. */
  total(state?: LockState): number {
    return state ? this.#byState[state].size : this.#rows.size;
  }

  /** The row of `key` (latin1 of its bytes) folded at `nowMs`; null when no node holds it. */
  row(key: string, nowMs: number): LockRow | null {
    const thresholds: FlagThresholds = {
      serverTimeMs: nowMs,
      longHeldMs: this.#options.longHeldMs,
      longWaitMs: this.#options.longWaitMs,
    };
    return foldIndexed(key, this.#reads(key), this.#nodeIds, this.#options.quorumSize, thresholds);
  }

  /** Ownership figures for the metrics, ages in seconds at `nowMs`: kept as rows change (ownership-figures.ts). */
  figures(nowMs: number): OwnershipFigures {
    return this.#tally.figures(nowMs);
  }

  /** True when the index covers the key: every reachable node is listed and follows changes. */
  get complete(): boolean {
    return this.watches.every((watch) => !watch.reachable || watch.complete);
  }

  listing(): Listing {
    return {
      complete: this.complete,
      nodes: this.watches.map((watch, index) => {
        const status = watch.status();
        return {
          nodeId: this.#nodes[index]!.id,
          mode: status.mode,
          asOf: status.asOf,
          fraction: status.listing?.fraction ?? null,
        };
      }),
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

  /** Resolves once every change made on the nodes before the call is in the index (see NodeWatch.sync). */
  async sync(): Promise<void> {
    await Promise.all(this.watches.map((watch) => watch.sync()));
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#refoldRun += 1;
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

  #update(key: string, nodeIndex = -1, cause?: RemovalCause): void {
    const reads = this.#reads(key);
    const next = stateOf(reads, this.#options.quorumSize);
    this.#observer?.observe(key, reads, next, nodeIndex, cause);
    this.#waitListener?.(key, reads);
    const entry = this.#rows.get(key);
    const previous = entry === undefined ? null : stateOfEntry(entry);
    const facts = next === null ? null : factsOf(reads, this.#options.quorumSize);
    this.#tally.change(factsOfEntry(entry), facts);
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

  /** A node came or went: every row's view of it changed (re-folded in slices: refold.ts). */
  #updateAll(): void {
    const run = ++this.#refoldRun;
    void refoldInSlices(
      {
        rowKeys: (low) => this.#rows.keys(low),
        hasRow: (key) => this.#rows.has(key),
        nodeKeys: () => this.watches.map((watch) => watch.keys()),
        update: (key) => this.#update(key),
      },
      () => run === this.#refoldRun,
    );
  }
}
