/** `GET /api/health` and `GET /api/nodes`. */
import { z } from "zod";
import { epochMsSchema, nodeAddressSchema, nodeIdSchema } from "./common";

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
]);
export type NodeWarningCode = z.infer<typeof nodeWarningCodeSchema>;

export const nodeWarningSchema = z.object({ code: nodeWarningCodeSchema, message: z.string() });
export type NodeWarning = z.infer<typeof nodeWarningSchema>;

/**
 * How the console's live index follows a node: `listing` (the first paced list, or a relist after a
 * gap, is still running), `watching` (listed, then kept current by keyspace notifications),
 * `polling` (notifications off on the node: relisted in paced passes), `down` (unreachable; the
 * index keeps what it last knew, shown as unreachable).
 */
export const indexModeSchema = z.enum(["listing", "watching", "polling", "down"]);
export type IndexMode = z.infer<typeof indexModeSchema>;

/** Why a listing of a node runs. */
export const listingReasonSchema = z.enum([
  /** The console started. */
  "start",
  /** The node or its notification subscription came back after a gap. */
  "reconnect",
  /** The node's run_id changed: it restarted or failed over, and may have lost keys. */
  "restart",
  /** More changes arrived than the console could read within its budget. */
  "overflow",
  /** The periodic resync (CONSOLE_RESYNC_INTERVAL_MS). */
  "resync",
  /** A pass of polling mode. */
  "poll",
]);
export type ListingReason = z.infer<typeof listingReasonSchema>;

/** A paced listing in progress: how far it got. */
export const listingProgressSchema = z.object({
  reason: listingReasonSchema,
  startedAt: epochMsSchema,
  /** Keys SCAN has visited so far (an estimate: SCAN COUNT per call). */
  keysVisited: z.number().int().nonnegative(),
  /** Keys in the node's db when the listing started (DBSIZE); null when unknown. */
  keysTotal: z.number().int().nonnegative().nullable(),
  /** Lock keys found so far. */
  locksFound: z.number().int().nonnegative(),
  /**
   * Keys read so far that hold no lock of a recognised format (an application's own keys, other
   * types, or keys gone before the read): skipped, not listed, not kept.
   */
  keysSkipped: z.number().int().nonnegative(),
  /** keysVisited / keysTotal, capped below 1 until the SCAN completes; null when unknown. */
  fraction: z.number().min(0).max(1).nullable(),
});
export type ListingProgress = z.infer<typeof listingProgressSchema>;

/**
 * A polled node's pace: its passes spend at most ~2% of one core of the master (measured from INFO
 * commandstats), and freshness degrades instead.
 */
export const pollPaceSchema = z.object({
  /** Keys per second a pass visits. */
  perS: z.number().int().positive(),
  /** What a key costs the master (µs of SCAN and read script per key visited); null until measured. */
  keyCostUs: z.number().nonnegative().nullable(),
  /** The share of one core the last pass took on the master (0.02: 2%); null until measured. */
  cpuShare: z.number().nonnegative().nullable(),
  /** A change on the node is seen within about this long: one pass over its keys (keys / perS). */
  changesWithinMs: z.number().nonnegative(),
});
export type PollPace = z.infer<typeof pollPaceSchema>;
/** A key shape (`orders:*:view`: a key's segments, id-like ones as `*`) as the live index sees it. */
export const keyShapeFiguresSchema = z.object({
  shape: z.string(),
  /** Reads of keys of this shape (notifications and listings) since the console started. */
  reads: z.number().int().nonnegative(),
  /** Of those, reads that found a lock. */
  locksFound: z.number().int().nonnegative(),
  /** Keyspace notifications per second for keys of this shape. */
  notificationsPerS: z.number().nonnegative(),
  /** Reads per second the console no longer makes for keys of this shape. */
  readsAvoidedPerS: z.number().nonnegative(),
});
export type KeyShapeFigures = z.infer<typeof keyShapeFiguresSchema>;

/** A LOCK_MATCH that covers every lock shape found, and what it would save on this node. */
export const lockMatchSuggestionSchema = z.object({
  patterns: z.array(z.string()),
  /** Notifications per second the node would no longer publish to the console. */
  notificationsAvoidedPerS: z.number().nonnegative(),
  /** Reads per second the console still makes (samples, untracked shapes) that it would not. */
  readsAvoidedPerS: z.number().nonnegative(),
});
export type LockMatchSuggestion = z.infer<typeof lockMatchSuggestionSchema>;

/**
 * With notifications on, which changed keys the console reads: keys of shapes that never held a
 * lock are skipped on notifications after many reads (one is still read per second as a sample),
 * and the periodic resync still lists them: a lock under such a shape shows `lateByAtMostMs` late
 * at worst, and its shape is read again at once.
 */
export const eventReadsSchema = z.object({
  /** Reads per second that notifications caused, and those skipped (shape or event class). */
  readsPerS: z.number().nonnegative(),
  readsAvoidedPerS: z.number().nonnegative(),
  /** Shapes tracked (the table is capped); reads of shapes beyond the cap are always made. */
  shapesTracked: z.number().int().nonnegative(),
  untrackedReadsPerS: z.number().nonnegative(),
  /** Shapes skipped on notifications (the most costly first, at most 20) and how many in all. */
  skippedShapes: z.array(keyShapeFiguresSchema),
  skippedShapeCount: z.number().int().nonnegative(),
  /** Shapes that held a lock (the busiest first, at most 20): always read. */
  lockShapes: z.array(keyShapeFiguresSchema),
  /** How late a lock under a skipped shape can show at worst: the resync interval plus a listing. */
  lateByAtMostMs: z.number().nonnegative(),
  /** Keyspace patterns subscribed on this node, with what each delivers. */
  subscriptions: z.array(z.object({ pattern: z.string(), notificationsPerS: z.number() })),
  /** null: no lock found yet, or no narrower LOCK_MATCH covers them. */
  suggestion: lockMatchSuggestionSchema.nullable(),
});
export type EventReads = z.infer<typeof eventReadsSchema>;

/** The live index's view of one node: mode, freshness, listing progress. */
export const nodeIndexSchema = z.object({
  mode: indexModeSchema,
  /** Why a node is polled rather than watched (e.g. notify-keyspace-events lacks flags); else null. */
  reason: z.string().nullable(),
  /**
   * Every change on the node up to this instant (console clock, epoch ms) is in the index: "as of".
   * null until the node's first listing completes.
   */
  asOf: epochMsSchema.nullable(),
  /** The listing in progress (first list, relist, resync or polling pass); null when none runs. */
  listing: listingProgressSchema.nullable(),
  /** When the last complete listing ended, and how long it took; null before the first. */
  listedAt: epochMsSchema.nullable(),
  listingMs: z.number().nullable(),
  /** Lock keys of this node in the index. */
  lockKeys: z.number().int().nonnegative(),
  /**
   * The index holds CONSOLE_SCAN_MAX_KEYS lock keys of this node and left others out: a lock held
   * here may be missing from the list and the history (the lock page reads the node itself). False
   * again once a listing ends that left nothing out.
   */
  truncated: z.boolean(),
  /**
   * Keys matching LOCK_MATCH that the last complete listing skipped: no lock of a recognised format
   * (see listingProgressSchema.keysSkipped); 0 before the first listing.
   */
  skippedKeys: z.number().int().nonnegative(),
  /** Keys per second the console may visit or read on this node (CONSOLE_SCAN_BUDGET_PER_S). */
  budgetPerS: z.number().int().positive(),
  /** While polled: how fast, at what cost to the master, and how fresh; null otherwise. */
  polling: pollPaceSchema.nullable().optional(),
  /** What notifications make the console read (null while the node is not watched by them). */
  eventReads: eventReadsSchema.nullable(),
});
export type NodeIndex = z.infer<typeof nodeIndexSchema>;

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
  /** Error text when down (never contains a password). */
  error: z.string().nullable(),
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
  nodes: z.array(z.object({ id: nodeIdSchema, address: nodeAddressSchema, up: z.boolean() })),
});
export type HealthResponse = z.infer<typeof healthResponseSchema>;

/**
 * `POST /api/nodes/{id}/keyspace-events` (the node is in the path): `{}` turns the events on;
 * `{ "preview": true }` only reads the node's flags and answers the command it would run.
 */
export const keyspaceEventsRequestSchema = z.object({ preview: z.boolean().optional() }).strict();
export type KeyspaceEventsRequest = z.infer<typeof keyspaceEventsRequestSchema>;

/** A node id as it appears in a path: what REDLOCK_NODES entries are named (`node-3`). */
export const nodePathIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, "a node id is 1-64 letters, digits, '.', '_' or '-'");

/**
 * What turning on a node's keyspace events did: `enabled` (only the flags it lacked were added:
 * `from` → `to`), `already` (it had them all), or `refused` (CONFIG SET was not allowed: `command`
 * is what to run on the node instead, `error` what the node said). A preview answers `preview`:
 * `from` (the flags now), `to` and `command` (the CONFIG SET it would run), changing nothing.
 */
export const keyspaceEventsResponseSchema = z.object({
  nodeId: nodeIdSchema,
  outcome: z.enum(["preview", "enabled", "already", "refused"]),
  from: z.string().nullable(),
  to: z.string().nullable(),
  command: z.string().nullable(),
  error: z.string().nullable(),
});
export type KeyspaceEventsResponse = z.infer<typeof keyspaceEventsResponseSchema>;
