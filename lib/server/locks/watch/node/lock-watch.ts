/**
 * What the live index holds per lock node, whether the node is a single server (NodeWatch) or a
 * Redis Cluster (ClusterWatch, one NodeWatch per primary), and what it tells them.
 */
import type { NodeIndex } from "@/lib/api";
import type { IndexedState, RemovalCause } from "../store/node-store";
import type { TurnOn } from "../events/notify-config";
import type { ShapeTableOptions } from "../events/shape-table";

export interface LockWatch {
  /** The node answers (a cluster: every primary does). */
  readonly reachable: boolean;
  /** The index holds the whole node: listed at least once, and no gap since. */
  readonly complete: boolean;
  /** Some lock key was left out, the index being full (maxKeys). */
  readonly truncated: boolean;
  /** What the node holds under `key` as far as the index knows, reachable or not. */
  get(key: string): IndexedState | undefined;
  /** What the node holds under `key`: its state, null (absent) or undefined (unreachable). */
  read(key: string): IndexedState | null | undefined;
  keys(): Iterable<string>;
  status(): NodeIndex;
  /** Drops the states whose TTL ran out by `nowMs`. */
  sweep(nowMs: number): void;
  /** Resolves once every change made on the node before the call is in the index. */
  sync(): Promise<void>;
  /**
   * Reads `key` (latin1) into the index now, paid from the node's budget: a fresh read elsewhere
   * (the lock page) found a lock the index lacked. Resolves once settled; a node down is skipped.
   */
  reread(key: string): Promise<void>;
  /** CONFIG SETs the keyspace-event flags the node lacks (an admin's action); absent on a cluster. */
  turnOnKeyspaceEvents?(): Promise<TurnOn>;
  close(): Promise<void>;
}

/** What a watch is told and tells, the same for a single server and a cluster. */
export interface LockWatchOptions {
  /** Lock key patterns (SCAN MATCH globs). */
  readonly patterns: readonly string[];
  /** How often a watched node is listed again, to heal anything a notification missed. */
  readonly resyncIntervalMs: number;
  /**
   * Keys per second a relist after a gap (subscriber or connection lost, queue overflow, restart)
   * may visit: the index is known to miss changes until it ends, so it runs faster than the steady
   * budget. @default the node's budget
   */
  readonly healBudgetPerS?: number;
  /**
   * How often a watched node's notify-keyspace-events is read again (one CONFIG GET), to notice
   * flags switched off at run time. @default 10_000
   */
  readonly notifyCheckIntervalMs?: number;
  /** Turn the node's keyspace notifications on when they are off (CONFIG SET). */
  readonly enableKeyspaceEvents: boolean;
  /** On close, put back the notify-keyspace-events this console changed. @default false */
  readonly restoreKeyspaceEvents?: boolean;
  /** Which changed keys are read on notifications (shape-table.ts); its defaults when absent. */
  readonly shapes?: Pick<
    ShapeTableOptions,
    "minReadsToSkip" | "probeIntervalMs" | "sampleReadsPerS" | "maxShapes"
  >;
  /** A node that does not answer a PING within this long counts as down (a paused or hung node). */
  readonly nodeTimeoutMs: number;
  /** Lock keys kept per node at most. */
  readonly maxKeys: number;
  /**
   * The node's state for `key` (latin1 of its bytes) changed; null: it holds nothing now, and
   * `cause` tells why (the keyspace event that removed it, when one came).
   */
  readonly onChange: (key: string, state: IndexedState | null, cause?: RemovalCause) => void;
  /**
   * The instances of a key name and of its value already held for another node, when equal: five
   * nodes holding one lock then share one string of each, not five.
   */
  readonly shared: (name: string, value: string) => { name: string; value: string };
  /** The node became reachable or unreachable: every row's view of it changes. */
  readonly onReachability: () => void;
  /**
   * Values that came and went between two reads of `key` on this node (`set` events whose value the
   * read no longer found): holds too short to be seen, counted, not shown.
   */
  readonly onBrief?: (key: string, holds: number) => void;
  /** A relist after a gap begins: changes made since `sinceMs` may have been missed. */
  readonly onGap?: (sinceMs: number) => void;
}
