import "server-only";
/**
 * The live index's watches (live-index.ts), one per configured node in node order: a single
 * server's NodeWatch with a budget of its own, or a cluster's watch (one per primary). Each gets the
 * index's settings and tells the index of its changes through the hooks made for its node.
 */
import type { ConsoleNode } from "../../node-registry";
import { createBudget } from "../watch/io/budget";
import { ClusterWatch } from "../watch/node/cluster-watch";
import type { LockWatch, LockWatchOptions } from "../watch/node/lock-watch";
import { NodeWatch } from "../watch/node/node-watch";

/** What every node's watch is told (lock-watch.ts says what each means), and its budgets. */
export type WatchSettings = Pick<
  LockWatchOptions,
  | "patterns"
  | "resyncIntervalMs"
  | "notifyCheckIntervalMs"
  | "healBudgetPerS"
  | "enableKeyspaceEvents"
  | "restoreKeyspaceEvents"
  | "shapes"
  | "nodeTimeoutMs"
  | "maxKeys"
> & {
  /** Keys per second each node's watch may visit or read. */
  readonly budgetPerS: number;
  /** Value bytes per second each node's reads may touch (budget.ts); default 16 MiB. */
  readonly readBytesPerS?: number;
};

/** What a node's watch tells the index. */
export type WatchHooks = Pick<
  LockWatchOptions,
  "onChange" | "shared" | "onReachability" | "onGap" | "onBrief"
>;

/** One watch per node; `hooksOf(nodeIndex)` makes the hooks of the node at that index. */
export function watchesOf(
  nodes: readonly ConsoleNode[],
  settings: WatchSettings,
  hooksOf: (nodeIndex: number) => WatchHooks,
): LockWatch[] {
  return nodes.map((node, nodeIndex) => {
    const watchOptions: LockWatchOptions = {
      patterns: settings.patterns,
      resyncIntervalMs: settings.resyncIntervalMs,
      notifyCheckIntervalMs: settings.notifyCheckIntervalMs,
      healBudgetPerS: settings.healBudgetPerS,
      enableKeyspaceEvents: settings.enableKeyspaceEvents,
      restoreKeyspaceEvents: settings.restoreKeyspaceEvents,
      shapes: settings.shapes,
      nodeTimeoutMs: settings.nodeTimeoutMs,
      maxKeys: settings.maxKeys,
      ...hooksOf(nodeIndex),
    };
    const { budgetPerS, readBytesPerS } = settings;
    return node.kind === "cluster"
      ? new ClusterWatch(node, { ...watchOptions, budgetPerS, readBytesPerS })
      : new NodeWatch({ ...watchOptions, node, budget: createBudget(budgetPerS, readBytesPerS) });
  });
}
