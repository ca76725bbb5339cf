/**
 * `GET /api/audit?limit=`: the audit trail, merged from every reachable node. `kind=refusals` reads
 * the refusal log instead: refused state-changing requests and wrong credentials, aggregated.
 */
import { z } from "zod";
import { epochMsSchema, nodeIdSchema } from "./common";

export const DEFAULT_AUDIT_LIMIT = 100;
export const MAX_AUDIT_LIMIT = 1000;

const queryEpochMs = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

/**
 * Filters (issue 42): `person` (a subject, an email, or words of the actor's label), `resource`
 * (one resource the entry names, exactly), `since`/`until` (epoch ms, inclusive), `id` (one
 * entry: the per-entry link `/audit?id=`). A filtered read looks back through at most
 * MAX_AUDIT_SCAN entries per node and says when it stopped there.
 */
export const auditQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_AUDIT_LIMIT).default(DEFAULT_AUDIT_LIMIT),
  person: z.string().trim().min(1).max(256).optional(),
  resource: z.string().min(1).max(8192).optional(),
  since: queryEpochMs.optional(),
  until: queryEpochMs.optional(),
  id: z
    .string()
    .regex(/^[0-9A-Za-z-]{1,64}$/, "must be an audit entry id")
    .optional(),
  kind: z
    .enum(["actions", "refusals"], { error: 'must be "actions" or "refusals"' })
    .default("actions"),
});
/** Entries a filtered read looks back through per node, for a reader with a credential. */
export const MAX_AUDIT_SCAN = 20_000;
/**
 * The same for an anonymous reader (public reads): one XREVRANGE page per node, so a search by
 * anyone costs the masters no more than one page of locks does (issue 49).
 */
export const MAX_ANONYMOUS_AUDIT_SCAN = 500;
export type AuditQuery = z.infer<typeof auditQuerySchema>;

export const auditActionSchema = z.enum([
  "acquire",
  "extend",
  "release",
  "force-release",
  /** An admin asked a holder to release its lock (a revoke marker and a notice). */
  "revoke",
  /** Every lock of one holder session asked to release (one deadline) or force-released, in one action. */
  "release-session",
  /** An admin turned on a node's keyspace events (the node card's action). */
  "keyspace-events",
  /** Before sign-in with OpenID Connect: a login with the admin token (now "sign-in"). */
  "login",
  "logout",
  /** A person signed in (OpenID Connect), or a sign-in with the break-glass admin token. */
  "sign-in",
  "sign-out",
  /** An admin ended every sign-in of one person, on every replica. */
  "revoke-sign-ins",
  /** The break-glass bearer token used for reads: the first per client per 10 minutes. */
  "break-glass",
  /**
   * A wrong credential (login form or bearer). Since issue 49 written to the refusal log
   * (`kind=refusals`), aggregated; older trails may hold such entries.
   */
  "auth-failure",
  /** A person created a personal token (its name, grants and expiry in `detail`). */
  "token-create",
  /** A personal token revoked by its owner or an admin. */
  "token-revoke",
]);
export type AuditAction = z.infer<typeof auditActionSchema>;

/**
 * What a revoked holder did by its deadline, as its revoke's follow-up learned it:
 * "released" (it recorded its release), "did-not-release" (still held on a majority past the
 * deadline), "no-record" (no release recorded, and the lock no longer held on a majority: it
 * expired or was deleted).
 */
export const holderDidSchema = z.enum(["released", "did-not-release", "no-record"]);
export type HolderDid = z.infer<typeof holderDidSchema>;

export const auditPersonSchema = z.object({
  subject: z.string(),
  issuer: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
});
export type AuditPerson = z.infer<typeof auditPersonSchema>;

/** An incident link on a state-changing request: http(s) only (never javascript: in the trail's link). */
export const MAX_INCIDENT_URL_LENGTH = 2_048;
export const incidentUrlSchema = z
  .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
  .max(MAX_INCIDENT_URL_LENGTH, `must be at most ${MAX_INCIDENT_URL_LENGTH} characters`);

export const auditEntrySchema = z.object({
  /** Event id (UUID), the same on every node the entry was written to. */
  id: z.string(),
  at: epochMsSchema,
  action: auditActionSchema,
  /**
   * The person ("Alice Oncall <alice@example.com>"), "break-glass (token)" (the admin token as a
   * bearer), "break-glass (sign-in <8 chars of its random id>)" (a sign-in with the admin token), or
   * "anonymous"; before sign-in existed, "token" and "session:<8 chars>". Never derived from a
   * secret: this trail is readable by anyone who may read.
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
  /** Error code or a short summary of the result: the human sentence, never parsed back. */
  detail: z.string(),
  /** A follow-up entry: the id of the entry it follows up (a revoke, force-release or session release). */
  followUpOf: z.string().nullable().default(null),
  /** A revoke's follow-up: what the holder did by the deadline. */
  holderDid: holderDidSchema.nullable().default(null),
  /** With holderDid "released": the holder's own record, how long after the request it released. */
  releasedAfterMs: z.number().nonnegative().nullable().default(null),
  /** Nodes whose stream holds this entry. */
  nodes: z.array(nodeIdSchema),
  // Who, as a person (issue 42). Absent in entries written before: read as null.
  /** The person who acted (a token's owner); null for break-glass and anonymous. */
  person: auditPersonSchema.nullable().default(null),
  /** How they proved it. */
  credential: z
    .enum(["sign-in", "proxy", "personal-token", "break-glass"])
    .nullable()
    .default(null),
  /** The personal token's name, with credential "personal-token". */
  tokenName: z.string().nullable().default(null),
  /** The role of the grant that allowed the action, and that grant's rule. */
  role: z.enum(["viewer", "operator", "admin"]).nullable().default(null),
  rule: z.string().nullable().default(null),
  /** The incident the action was taken for (an http(s) URL given with the request). */
  incident: z.string().nullable().default(null),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/**
 * Refused requests of one kind, summed over a flush window (issue 49): who (the actor fields),
 * what (`action`: the route, or "auth-failure"; `resources`), why (`code`, `status`, the first
 * `detail`), how many (`count`) and when (`firstAt`..`lastAt`; `at` = `lastAt`). A subject's
 * flood of refusals lands here, in its own bounded stream, never evicting actions.
 */
export const auditRefusalSchema = z.object({
  id: z.string(),
  at: epochMsSchema,
  firstAt: epochMsSchema,
  lastAt: epochMsSchema,
  count: z.number().int().positive(),
  action: z.string(),
  code: z.string(),
  status: z.number().int(),
  actor: z.string(),
  person: auditPersonSchema.nullable(),
  credential: auditEntrySchema.shape.credential,
  tokenName: z.string().nullable(),
  clientIp: z.string(),
  userAgent: z.string(),
  resources: z.array(z.string()),
  /** The first refusal's message in the window. */
  detail: z.string(),
  nodes: z.array(nodeIdSchema),
});
export type AuditRefusal = z.infer<typeof auditRefusalSchema>;

/**
 * How full a stream is, so an admin hears before it drops entries: the longest copy among the
 * nodes against the agreed length cap, and the oldest entry's age by its own `at`.
 */
export const auditStreamStateSchema = z.object({
  length: z.number().int().nonnegative(),
  maxLen: z.number().int().positive(),
  retentionDays: z.number().positive(),
  fillPercent: z.number().nonnegative(),
  oldestAt: epochMsSchema.nullable(),
  /** Set from AUDIT_FILL_WARN_PERCENT of the cap on: the trail will soon drop its oldest entries. */
  warning: z.string().nullable(),
});
export type AuditStreamState = z.infer<typeof auditStreamStateSchema>;
/** The fill at which the audit answer warns. */
export const AUDIT_FILL_WARN_PERCENT = 80;

export const auditResponseSchema = z.object({
  serverTime: epochMsSchema,
  /** Newest first; empty with `kind=refusals`. */
  entries: z.array(auditEntrySchema),
  /** With `kind=refusals`: the refusal log's aggregates, newest first. */
  refusals: z.array(auditRefusalSchema).optional(),
  unreachableNodes: z.array(nodeIdSchema),
  /** A filtered read stopped after its scan window per node: older matches may exist. */
  scanLimitReached: z.boolean().optional(),
  /** The read stream's fill and age (actions, or refusals with `kind=refusals`). */
  stream: auditStreamStateSchema.optional(),
});
export type AuditResponse = z.infer<typeof auditResponseSchema>;
