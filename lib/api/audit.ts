/** `GET /api/audit?limit=`: the audit trail, merged from every reachable node. */
import { z } from "zod";
import { epochMsSchema, nodeIdSchema } from "./common";

export const DEFAULT_AUDIT_LIMIT = 100;
export const MAX_AUDIT_LIMIT = 1000;

export const auditQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_AUDIT_LIMIT).default(DEFAULT_AUDIT_LIMIT),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;

export const auditActionSchema = z.enum([
  "acquire",
  "extend",
  "release",
  "force-release",
  /** An admin asked a holder to release its lock (a revoke marker and a notice). */
  "revoke",
  /** Every lock of one holder session force-released in one action. */
  "release-session",
  /** An admin turned on a node's keyspace events (the node card's action). */
  "keyspace-events",
  "login",
  "logout",
  /** A wrong admin token (login form or bearer); the first per client per minute, rate-limited. */
  "auth-failure",
]);
export type AuditAction = z.infer<typeof auditActionSchema>;

export const auditEntrySchema = z.object({
  /** Event id (UUID), the same on every node the entry was written to. */
  id: z.string(),
  at: epochMsSchema,
  action: auditActionSchema,
  /**
   * "token" (bearer), "session:<8 chars of the session's random id>" (browser login) or "anonymous".
   * Never derived from the token itself: this trail is readable by anyone who may read.
   */
  actor: z.string(),
  /** Client address: the TCP peer, or X-Forwarded-For's last hop with CONSOLE_TRUST_PROXY. */
  clientIp: z.string(),
  userAgent: z.string(),
  resources: z.array(z.string()),
  /** The lock value acted upon, when there is one. */
  value: z.string().nullable(),
  reason: z.string().nullable(),
  outcome: z.enum(["success", "failure"]),
  /** Error code or a short summary of the result. */
  detail: z.string(),
  /** Nodes whose stream holds this entry. */
  nodes: z.array(nodeIdSchema),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditResponseSchema = z.object({
  serverTime: epochMsSchema,
  /** Newest first. */
  entries: z.array(auditEntrySchema),
  unreachableNodes: z.array(nodeIdSchema),
});
export type AuditResponse = z.infer<typeof auditResponseSchema>;
