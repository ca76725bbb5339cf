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
]);
export type NodeWarningCode = z.infer<typeof nodeWarningCodeSchema>;

export const nodeWarningSchema = z.object({ code: nodeWarningCodeSchema, message: z.string() });
export type NodeWarning = z.infer<typeof nodeWarningSchema>;

export const nodeInfoSchema = z.object({
  id: nodeIdSchema,
  address: nodeAddressSchema,
  tls: z.boolean(),
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
