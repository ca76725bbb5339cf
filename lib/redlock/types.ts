import type { Client } from "./driver";
import type { OwnerInfo } from "./protocol";

// Who holds a lock is part of the wire protocol (the value carries it): protocol.ts.
export type { OwnerInfo };

export type {
  Client,
  IoredisClient,
  NodeRedisClient,
  NodeRedisClusterClient,
  RedisDriver,
  Subscriber,
} from "./driver";

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

/** A contender retrying for a resource (a member of `redlock:waiters:<resource>`). */
export interface WaiterInfo {
  /** 16 hex chars, one per waiting acquire call. */
  readonly id: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Epoch ms on the contender's clock when its acquire call started. */
  readonly since: number;
  /** The waiting instance's session id; absent with `session: false` or from an older library. */
  readonly session?: string;
  /** Epoch ms after which the entry is ignored (its retry window, bounded), latest over the nodes. */
  readonly expiresAt: number;
}

/** What one node holds for one resource, as `redlock.inspect()` read it. */
export interface NodeInspection {
  readonly index: number;
  /** `host:port` of the node (never a password). */
  readonly address: string;
  /** Why the node gave no answer (timeout, unavailable, Redis error); the fields below are then absent. */
  readonly error?: Error;
  /** The Redis type of the resource key: "none" when absent, "string" for Redlock-style locks. */
  readonly keyType?: string;
  /** The holder value, when the key is a string. */
  readonly value?: string;
  /** Remaining TTL of the key in ms; -1 when it has none, -2 when there is no key. */
  readonly pttlMs?: number;
  /** The owner entry on this node, only when it belongs to `value`. */
  readonly owner?: OwnerInfo;
  /** Unexpired waiters registered on this node. */
  readonly waiterCount?: number;
}

/** A read-only look at one resource across every node (`redlock.inspect()`). */
export interface ResourceInspection {
  readonly resource: string;
  /**
   * `held`: one holder on a quorum of nodes. `partial`: one holder, on fewer nodes. `conflict`:
   * different holders, none on a quorum. `free`: no key on any node that answered.
   */
  readonly state: "held" | "partial" | "conflict" | "free";
  /** Whether one holder has the key on at least `quorumSize` nodes. */
  readonly held: boolean;
  /** The value held by the most nodes (undefined when free, or when that key is not a string). */
  readonly value?: string;
  /** Nodes holding that holder's key. */
  readonly quorum: number;
  readonly quorumSize: number;
  /** Nodes that answered within `nodeTimeout`. */
  readonly answeredCount: number;
  /**
   * How long the holder stays on a quorum, in ms: the quorum-th largest PTTL among its nodes, as
   * read (no drift subtracted). Infinity when those keys have no TTL; 0 when not held.
   */
  readonly validityMs: number;
  /** The holder's owner entry, shown only from nodes where it belongs to `value`. */
  readonly owner?: OwnerInfo;
  /** Unexpired waiters over all nodes (deduplicated by id), oldest first. */
  readonly waiters: readonly WaiterInfo[];
  /** Each node's detail, in client order. */
  readonly nodes: readonly NodeInspection[];
}
