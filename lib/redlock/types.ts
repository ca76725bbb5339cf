import type { Cluster, Redis } from "ioredis";

/** A Redis master as the library uses it: an ioredis client or cluster. */
export type Client = Redis | Cluster;

export type Operation = "acquire" | "extend" | "release";

/** One node's answer to one attempt. */
export interface NodeVote {
  /** Position of the node in the clients given to the constructor. */
  readonly index: number;
  /** `host:port` of the node (never a password). */
  readonly address: string;
  readonly vote: "for" | "against";
  /** Time from sending the command to its answer, or to giving up on it. */
  readonly latencyMs: number;
  readonly error?: Error;
}

/** The votes of one attempt (node-redlock's shape, plus `nodes` and `elapsedMs`). */
export interface ExecutionStats {
  readonly membershipSize: number;
  readonly quorumSize: number;
  readonly votesFor: Set<Client>;
  readonly votesAgainst: Map<Client, Error>;
  /** Ours: each node's vote and latency, in client order. */
  readonly nodes: readonly NodeVote[];
  /** Ours: time from the attempt's start to its quorum decision. */
  readonly elapsedMs: number;
}

export interface ExecutionResult {
  readonly attempts: ReadonlyArray<Promise<ExecutionStats>>;
}

/** How a release went on the nodes: counts of nodes, out of the membership. */
export interface ReleaseCounts {
  /** Nodes on which this lock's keys were found and deleted. */
  readonly releasedCount: number;
  /** Nodes that errored or timed out; their keys (if any) expire on their own. */
  readonly failedCount: number;
  /** True when no node (of those counted) still held the lock: it had expired or was released before. */
  readonly alreadyReleased: boolean;
}

/**
 * What `release` resolves with: it never throws because a lock already expired. `release` resolves
 * as soon as a majority of nodes has replied (or every node that can reply has), and its counts are
 * those known at that moment: nodes still to answer count in none of them. `settled` has the counts
 * once every node has answered or timed out (within `nodeTimeout`), like `attempts`.
 */
export interface ReleaseResult extends ExecutionResult, ReleaseCounts {
  /** Ours: the counts over every node, once each has answered or timed out. */
  readonly settled: Promise<ReleaseCounts>;
}

/** Emitted as `"operation"` after every acquire, extend and release, for charts and metrics. */
export interface OperationEvent {
  readonly operation: Operation;
  readonly resources: readonly string[];
  readonly outcome: "success" | "failure";
  /** Attempts made, retries included. */
  readonly attempts: number;
  /** Total time of the call, retries included. */
  readonly latencyMs: number;
  /** The last attempt's per-node votes. */
  readonly nodes: readonly NodeVote[];
}

/** What the library knows about one node, for the console. */
export interface NodeState {
  readonly index: number;
  readonly address: string;
  /**
   * `ok`: votes normally. `suspect`: a command is overdue, so no new ones are sent until it answers.
   * `quarantined`: restarted within `restartQuarantine`. `unknown`: restart check still pending.
   */
  readonly status: "ok" | "suspect" | "quarantined" | "unknown";
  readonly quarantinedUntil?: number;
  readonly uptimeS?: number;
  readonly runId?: string;
}

/** An AbortSignal that carries the reason a `using` routine lost its lock (node-redlock shape). */
export type RedlockAbortSignal = AbortSignal & { error?: Error };
