/** `GET /api/health` and `GET /api/nodes`. */
import { z } from "zod";
import { epochMsSchema, nodeAddressSchema, nodeIdSchema } from "./common";
import { nodeIndexSchema } from "./node-index";

export const nodeStatusSchema = z.enum(["up", "down", "quarantined"]);
export type NodeStatus = z.infer<typeof nodeStatusSchema>;

export const nodeWarningCodeSchema = z.enum([
  /** Neither AOF nor RDB, and restart quarantine off: a crash silently frees every lock on the node. */
  "no_persistence",
  /** AOF on but fsync only by the OS (`appendfsync no`): a crash may lose the last seconds of locks. */
  "weak_fsync",
  /** A maxmemory-policy that evicts keys: under memory pressure the node drops locks. */
  "evicting_policy",
  /** The node is a replica, not a master: Redlock needs independent masters. */
  "not_master",
  /** The node's clock (TIME) differs from the console's by more than the tolerated skew. */
  "clock_skew",
  /** The node is unreachable or timed out. */
  "unreachable",
  /**
   * A cluster node whose primaries have replicas: replication is asynchronous, so a failover may
   * promote a replica that lacks a lock just granted (a restart in Redlock's sense).
   */
  "cluster_replicas",
  /** A cluster node reports cluster_state:fail, leaves slots unserved, or has a primary down. */
  "cluster_degraded",
  /**
   * The node restarted (a new run_id) recently: without persistence it came back empty, so every
   * lock it held now stands on one node fewer.
   */
  "restarted",
]);
export type NodeWarningCode = z.infer<typeof nodeWarningCodeSchema>;

/**
 * What a warning is about: the node is down now, it restarted (locks lost a node of margin), or its
 * configuration (persistence, eviction, role, clock) puts locks at risk.
 */
export const nodeWarningCategorySchema = z.enum(["down", "restart", "configuration"]);
export type NodeWarningCategory = z.infer<typeof nodeWarningCategorySchema>;

export const nodeWarningSchema = z.object({
  code: nodeWarningCodeSchema,
  message: z.string(),
  category: nodeWarningCategorySchema.optional(),
});
export type NodeWarning = z.infer<typeof nodeWarningSchema>;

/** Why a node does not answer, from what its connection met (not the client's retry wrapper). */
export const downCauseKindSchema = z.enum([
  /** Nothing listens on the address (ECONNREFUSED): the process is stopped or crashed. */
  "refused",
  /** Connected, but no answer within the node timeout: paused, overloaded or dropping packets. */
  "timeout",
  /** The connection attempt itself timed out (ETIMEDOUT): a firewall or a host that is off. */
  "connect_timeout",
  /** The server refused the credentials (WRONGPASS, NOAUTH, NOPERM). */
  "auth",
  /** The host name does not resolve. */
  "dns",
  /** No route to the host or its network. */
  "no_route",
  /** The TLS handshake failed (certificate, protocol). */
  "tls",
  /** The connection was closed or reset, and no reconnection has succeeded yet. */
  "connection_lost",
  "other",
]);
export type DownCauseKind = z.infer<typeof downCauseKindSchema>;

/** A node that does not answer: since when (as this console saw it) and why. */
export const nodeDownSchema = z.object({
  /** When the console first saw it down (epoch ms): its connection closing, or the first failed read. */
  sinceMs: epochMsSchema,
  cause: downCauseKindSchema,
  /** The cause in words, e.g. "connection refused: nothing listens on 127.0.0.1:7001". */
  message: z.string(),
});
export type NodeDown = z.infer<typeof nodeDownSchema>;

/** How many live locks stand on how many nodes, among those a restarted node lacks. */
export const lockMarginSchema = z.object({
  /** Nodes holding each of these locks' value now. */
  holders: z.number().int().nonnegative(),
  locks: z.number().int().nonnegative(),
});
export type LockMargin = z.infer<typeof lockMarginSchema>;

/** A restart the console saw (a new run_id), and what it means for the locks held now. */
export const nodeRestartSchema = z.object({
  /** When the new process started (epoch ms, from its uptime). */
  atMs: epochMsSchema,
  /**
   * True: it came back without persistence and loaded no key (every lock it held is gone from it);
   * false: it loaded an AOF or RDB; null: unknown.
   */
  emptyKeyspace: z.boolean().nullable(),
  /** Held locks this node lacks now, by how many nodes still hold them (most first). */
  locksLacking: z.array(lockMarginSchema),
  /** Sum of locksLacking. */
  lockCount: z.number().int().nonnegative(),
  /** What to do about it, with this console's restart quarantine in mind. */
  fix: z.string(),
});
export type NodeRestart = z.infer<typeof nodeRestartSchema>;

/** One primary (shard) of a cluster node: the slots it serves, its replicas, how the index follows it. */
export const clusterShardSchema = z.object({
  address: nodeAddressSchema,
  status: z.enum(["up", "down"]),
  /** Inclusive slot ranges it serves, in order. */
  slotRanges: z.array(z.tuple([z.number().int(), z.number().int()])),
  slotCount: z.number().int().nonnegative(),
  /** Its replicas as the cluster reports them (health: online, loading or failed). */
  replicas: z.array(z.object({ address: nodeAddressSchema, health: z.string() })),
  runId: z.string().nullable(),
  latencyMs: z.number().nullable(),
  keyCount: z.number().nullable(),
  /** Error text when down (never contains a password). */
  error: z.string().nullable(),
  index: nodeIndexSchema,
});
export type ClusterShard = z.infer<typeof clusterShardSchema>;

/** A node that is a Redis Cluster: its state and shards (one vote for the whole cluster). */
export const clusterInfoSchema = z.object({
  /** cluster_state as a primary reports it ("ok" | "fail"); null when none answered. */
  state: z.string().nullable(),
  /** Slots some primary serves (16384 when the cluster covers the keyspace). */
  slotsCovered: z.number().int().nonnegative(),
  /** When the console last read the topology (epoch ms); null before the first read. */
  topologyAt: epochMsSchema.nullable(),
  shards: z.array(clusterShardSchema),
});
export type ClusterInfo = z.infer<typeof clusterInfoSchema>;

/**
 * A master's write rate between the last two node reports, from the INFO they read anyway: what
 * turning keyspace events on would make it publish (one notification per key written, two for a
 * write that sets a TTL, one per expiry or eviction).
 */
export const writeRateSchema = z.object({
  /** Keys written per second (Redis' dirty counter, `rdb_changes_since_last_save`). */
  keyWritesPerS: z.number().int().nonnegative(),
  /** Keys expired or evicted per second (`expired_keys` + `evicted_keys`). */
  expiriesPerS: z.number().int().nonnegative(),
  /** The window the rates were measured over: the time between the two reports. */
  measuredOverMs: z.number().positive(),
});
export type WriteRate = z.infer<typeof writeRateSchema>;

export const nodeInfoSchema = z.object({
  id: nodeIdSchema,
  /** `host:port`; a cluster node: its seed's. */
  address: nodeAddressSchema,
  tls: z.boolean(),
  /** A single server, or a Redis Cluster used as one lock node (`?cluster=true`). */
  kind: z.enum(["single", "cluster"]),
  /** A cluster node's shards and state; null for a single server. */
  cluster: clusterInfoSchema.nullable(),
  status: nodeStatusSchema,
  /** Round trip of PING; null when down. */
  latencyMs: z.number().nullable(),
  runId: z.string().nullable(),
  uptimeS: z.number().nullable(),
  redisVersion: z.string().nullable(),
  /** "master" | "slave" as INFO replication reports it; null when down. */
  role: z.string().nullable(),
  /** When a quarantined node regains its vote (epoch ms); null when not quarantined. */
  quarantinedUntil: epochMsSchema.nullable(),
  /** Node TIME minus console clock, in ms (positive: the node is ahead); null when down. */
  clockSkewMs: z.number().nullable(),
  /** Keys in the node's selected db. */
  keyCount: z.number().nullable(),
  usedMemoryBytes: z.number().nullable(),
  maxmemoryPolicy: z.string().nullable(),
  aofEnabled: z.boolean().nullable(),
  /** Error text when down (never contains a password): the cause, as `down.message`. */
  error: z.string().nullable(),
  /** Since when and why the node is down; null when it answers. */
  down: nodeDownSchema.nullable().optional(),
  /** Its last restart the console saw, while recent or while locks still lack it; else null. */
  restart: nodeRestartSchema.nullable().optional(),
  warnings: z.array(nodeWarningSchema),
  /** How the live index follows this node. */
  index: nodeIndexSchema,
  /**
   * A single server's write rate between the last two reports; null before the second report, across
   * a restart or a save, for a cluster node, or when down.
   */
  writeRate: writeRateSchema.nullable().optional(),
});
export type NodeInfo = z.infer<typeof nodeInfoSchema>;

export const nodesResponseSchema = z.object({
  serverTime: epochMsSchema,
  /** Votes needed for a lock: floor(N/2)+1. */
  quorumSize: z.number().int(),
  /** Restart quarantine window in ms; 0 when off. */
  restartQuarantineMs: z.number(),
  nodes: z.array(nodeInfoSchema),
});
export type NodesResponse = z.infer<typeof nodesResponseSchema>;

export const healthResponseSchema = z.object({
  /** ok: every node up; degraded: a majority up; no_quorum: locks cannot be taken. */
  status: z.enum(["ok", "degraded", "no_quorum"]),
  serverTime: epochMsSchema,
  readOnly: z.boolean(),
  quorumSize: z.number().int(),
  reachableNodes: z.number().int(),
  nodes: z.array(
    z.object({
      id: nodeIdSchema,
      address: nodeAddressSchema,
      up: z.boolean(),
      /** Since when and why, for a node that does not answer. */
      down: nodeDownSchema.nullable().optional(),
      /** Its last restart, while recent or while locks still lack it. */
      restart: nodeRestartSchema.nullable().optional(),
    }),
  ),
  /**
   * This console replica: its id (CONSOLE_REPLICA_ID, else host:pid:random) and whether it writes
   * the history now (replicas on one CONSOLE_STATE_URL elect one writer; without a store, always).
   */
  replica: z.object({ id: z.string(), historyWriter: z.boolean() }).optional(),
});
export type HealthResponse = z.infer<typeof healthResponseSchema>;
