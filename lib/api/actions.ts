/**
 * `POST /api/locks` (acquire), `/extend`, `/release` and `/force-release`. One job: the request and
 * answer contracts of the lock actions. It is long because force-release's answer says every
 * outcome in fields (mode, reservedUntil, overlapPossibleUntil, majority, per-node results), and the
 * actions share their node-result and attempt schemas, which a split would import back and forth.
 */
import { z } from "zod";
import { incidentUrlSchema } from "./audit";
import {
  MAX_RESOURCE_BASE64_LENGTH,
  attemptSchema,
  epochMsSchema,
  lockValueSchema,
  nodeIdSchema,
  resourceListSchema,
  resourceNameSchema,
  ttlMsSchema,
} from "./common";
import { holderSessionStateSchema } from "./holder-session";

export const acquireRequestSchema = z.strictObject({
  resources: resourceListSchema,
  ttlMs: ttlMsSchema,
  /** Ask for a fencing token (strictly increasing per resource). @default false */
  fencing: z.boolean().optional(),
});
export type AcquireRequest = z.infer<typeof acquireRequestSchema>;

export const extendRequestSchema = z.strictObject({
  resources: resourceListSchema,
  value: lockValueSchema,
  ttlMs: ttlMsSchema,
});
export type ExtendRequest = z.infer<typeof extendRequestSchema>;

export const releaseRequestSchema = z.strictObject({
  resources: resourceListSchema,
  value: lockValueSchema,
});
export type ReleaseRequest = z.infer<typeof releaseRequestSchema>;

/** A lock the console acquired or extended. */
export const lockGrantSchema = z.object({
  resources: z.array(z.string()),
  value: z.string(),
  ttlMs: z.number().int(),
  /** Validity left when the answer was built: expiration minus serverTime, in ms. */
  validityMs: z.number(),
  /** Epoch ms at which validity ends (already net of elapsed time and drift). */
  expiration: epochMsSchema,
  /** null unless fencing was asked for. */
  fencingToken: z.number().int().nullable(),
  /** Wall time of the whole operation, retries included, in ms. */
  latencyMs: z.number(),
  attempts: z.array(attemptSchema),
});
export type LockGrant = z.infer<typeof lockGrantSchema>;

/** 201 of acquire, 200 of extend. */
export const lockGrantResponseSchema = z.object({
  serverTime: epochMsSchema,
  lock: lockGrantSchema,
});
export type LockGrantResponse = z.infer<typeof lockGrantResponseSchema>;

export const releaseResponseSchema = z.object({
  serverTime: epochMsSchema,
  resources: z.array(z.string()),
  /** Nodes on which the value was found and deleted (0: it had already expired or moved on). */
  releasedCount: z.number().int(),
  latencyMs: z.number(),
  attempts: z.array(attemptSchema),
});
export type ReleaseResponse = z.infer<typeof releaseResponseSchema>;

export const MIN_REASON_LENGTH = 3;
export const MAX_REASON_LENGTH = 500;

/** Longest `reason` of an admin action, and the shortest: "cleanup" is fine, "x" is not. */
const reasonSchema = z
  .string()
  .trim()
  .min(MIN_REASON_LENGTH, `must be at least ${MIN_REASON_LENGTH} characters`)
  .max(MAX_REASON_LENGTH, `must be at most ${MAX_REASON_LENGTH} characters`);

/** A lock key in a body: `resource` (UTF-8 text) or `resourceBase64` (its exact bytes), one of them. */
const resourceFields = {
  resource: resourceNameSchema.optional(),
  resourceBase64: z.base64().min(1).max(MAX_RESOURCE_BASE64_LENGTH).optional(),
};
const oneResource = {
  check: (body: { resource?: string; resourceBase64?: string }) =>
    (body.resource === undefined) !== (body.resourceBase64 === undefined),
  params: { message: "give exactly one of resource and resourceBase64", path: ["resource"] },
};

/**
 * For a holder whose value carries no session id (another library, `session: false`): nobody can
 * tell whether it still runs, so the operator chooses. "release-now" is the explicit delete-now
 * (`disposal`), accepting that the holder may still act as one; "hold-until-ttl" leaves a tombstone
 * that keeps everyone out until the replaced value's validity ends (nobody will acknowledge it).
 */
export const noSessionChoiceSchema = z.enum(["release-now", "hold-until-ttl"]);
export type NoSessionChoice = z.infer<typeof noSessionChoiceSchema>;

/**
 * What a force-release does to a value that still has validity (lib/api/unlock-rule.ts):
 * "tombstone" (the default: reserved until the holder acknowledges or its validity plus drift
 * ends) or "delete-now", the explicit immediate delete: audited as such, its answer and audit
 * saying until when two processes may act as holders. The console never chooses it by itself.
 */
export const forceReleaseDisposalSchema = z.enum(["tombstone", "delete-now"]);
export type ForceReleaseDisposal = z.infer<typeof forceReleaseDisposalSchema>;

/** `sha1:` + 12 hex digits of a value's SHA-1, as rows show it (`valueDigest`). */
export const valueDigestSchema = z
  .string()
  .regex(/^sha1:[0-9a-f]{12}$/, "must be sha1: followed by 12 lowercase hex digits");

/**
 * Force-release (admin; lib/api/unlock-rule.ts decides). Exactly one of:
 * - `expectedValue`: compared against what each node holds — nothing is changed (409
 *   value_changed) if any node holds another value when checked, and a node whose value changes
 *   between that check and the write is left alone (409 too);
 * - `valueDigest`: the same, comparing the SHA-1 of what each node holds with the digest;
 * - `force: true`: whatever value each node holds (each node's tombstone is built from its own).
 * Whatever the holder's liveness reads (alive, unresponsive, gone: never proof), the value is
 * replaced by a tombstone lasting its PTTL plus drift (a value without TTL: TOMBSTONE_WITHOUT_TTL_MS),
 * and every session found is notified; `disposal: "delete-now"` deletes it instead. A tombstone
 * already there is never lengthened (mode "unchanged"); lifting it is delete-now. A Redisson hash
 * lock cannot hold a tombstone: 409 hash_lock_needs_delete_now without delete-now. A holder without
 * a session needs `noSession` (400 without it). 503 quorum_unavailable when too few nodes answer
 * for the write to reach a majority.
 * The resource is named by `resource`, or by `resourceBase64` for a key that is not valid UTF-8.
 */
export const forceReleaseRequestSchema = z
  .strictObject({
    ...resourceFields,
    expectedValue: lockValueSchema.optional(),
    /**
     * Instead of `expectedValue`: the value's digest (`valueDigest` of the row), for a value shown
     * cut or digested. Each node compares the SHA-1 of what it holds, in the same script that writes.
     */
    valueDigest: valueDigestSchema.optional(),
    force: z.boolean().optional(),
    noSession: noSessionChoiceSchema.optional(),
    /** @default "tombstone" */
    disposal: forceReleaseDisposalSchema.optional(),
    /**
     * Admin only: act on the key even where its value has no lock format (an application's value
     * under LOCK_MATCH). Without it such a value is left as it is and the answer is 409 not_a_lock.
     */
    notALock: z.literal(true).optional(),
    reason: reasonSchema,
    /** The incident this is for: an http(s) link kept in the audit entry. */
    incident: incidentUrlSchema.optional(),
  })
  .refine(oneResource.check, oneResource.params)
  .refine(
    (body) =>
      [
        body.expectedValue !== undefined,
        body.valueDigest !== undefined,
        body.force === true,
      ].filter(Boolean).length === 1,
    {
      message:
        "give exactly one of expectedValue (compare), valueDigest (compare by digest), or force: true for any value",
      path: ["expectedValue"],
    },
  )
  .refine((body) => !(body.noSession === "release-now" && body.disposal === "tombstone"), {
    message: 'noSession "release-now" is disposal "delete-now": they contradict each other',
    path: ["noSession"],
  });
export type ForceReleaseRequest = z.infer<typeof forceReleaseRequestSchema>;

export const forceReleaseNodeOutcomeSchema = z.enum([
  /** Deleted: only by the explicit delete-now. */
  "deleted",
  /** The value was replaced by the tombstone (docs/holder-sessions.md). */
  "tombstoned",
  /** Already a tombstone: left as it was, never lengthened. */
  "reserved",
  /** The key was not there. */
  "absent",
  /** The node holds another value than expectedValue (or a key that is no lock): left alone. */
  "mismatch",
  /**
   * Left alone though it holds the value: another node holds a different value, too few nodes
   * answered, or a Redisson hash that only delete-now removes.
   */
  "kept",
  "unreachable",
]);
export type ForceReleaseNodeOutcome = z.infer<typeof forceReleaseNodeOutcomeSchema>;

export const forceReleaseNodeResultSchema = z.object({
  nodeId: nodeIdSchema,
  outcome: forceReleaseNodeOutcomeSchema,
  /** The value found on the node (deleted, replaced or kept); null when absent or unreachable. */
  value: z.string().nullable(),
  /**
   * The key's PTTL after the call in ms: the tombstone's life (tombstoned, reserved); the validity
   * removed (deleted); as found otherwise; null when absent or unreachable.
   */
  pttlMs: z.number().nullable(),
  latencyMs: z.number(),
});
export type ForceReleaseNodeResult = z.infer<typeof forceReleaseNodeResultSchema>;

/**
 * What the force-release did, and only that: "tombstoned" (reserved for its holder's
 * acknowledgement, at most until the replaced value's validity plus drift ends), "deleted" (the
 * explicit delete-now), "unchanged" (nothing written: a tombstone already stands, the value
 * changed, or too few nodes answered) or "absent" (no node held it).
 */
export const forceReleaseModeSchema = z.enum(["tombstoned", "deleted", "unchanged", "absent"]);
export type ForceReleaseMode = z.infer<typeof forceReleaseModeSchema>;

/** 200 of force-release; also the `details` of its 409 and 503. */
export const forceReleaseResponseSchema = z.object({
  serverTime: epochMsSchema,
  resource: z.string(),
  mode: forceReleaseModeSchema,
  /**
   * The holder's liveness as read before acting (never from the index); "unknown" for a holder
   * without a session (or a Redisson lock); null with `force: true`, which reads none.
   */
  holderState: holderSessionStateSchema.nullable(),
  deletedCount: z.number().int(),
  tombstonedCount: z.number().int(),
  /** Nodes that already held a tombstone, left as it was. */
  reservedCount: z.number().int(),
  /**
   * Epoch ms (console clock) until which nobody else gets the lock at most: when the tombstone
   * (new or standing) no longer stands on a majority, unless the holder acknowledges first. null
   * when no tombstone stands on a majority.
   */
  reservedUntil: epochMsSchema.nullable(),
  /**
   * delete-now only: epoch ms (console clock) until which two processes may act as holders (now
   * plus the longest validity removed). null otherwise.
   */
  overlapPossibleUntil: epochMsSchema.nullable(),
  /**
   * False when the value stood on fewer than a majority of the nodes (after a master restart, say):
   * its holder's library counts a lock absent or replaced on a majority as lost, so it is told.
   */
  majority: z.boolean(),
  /** What happened, in the words of lib/api/unlock-rule.ts. */
  summary: z.string(),
  nodes: z.array(forceReleaseNodeResultSchema),
  /**
   * Id of the audit entry recording the action (also in the tombstone and the notice). In a 409's
   * details when nothing was written, no entry has it: the refusal log counts that refusal.
   */
  auditId: z.string(),
  /**
   * Nodes whose value had no lock format: left alone (the 409 not_a_lock's details), or acted on
   * because an admin said `notALock: true`.
   */
  notALockCount: z.number().int(),
});
export type ForceReleaseResponse = z.infer<typeof forceReleaseResponseSchema>;

/** Revoke deadlines: how long the holder is given to let go, in ms. */
export const DEFAULT_REVOKE_DEADLINE_MS = 30_000;
export const MIN_REVOKE_DEADLINE_MS = 1_000;
export const MAX_REVOKE_DEADLINE_MS = 600_000;

/**
 * Revoke: ask the holder of `expectedValue` to release the lock by `deadlineMs` from now
 * (docs/holder-sessions.md). A revoke marker is written beside the lock on each node still holding
 * `expectedValue`, and the holder's session is notified; its library aborts its routine, keeps
 * extending until the routine settles or the deadline passes, then releases and records it.
 * 409 no_session for a holder without a session id (it can only be forced); 409 value_changed
 * when a node holds another value.
 */
export const revokeRequestSchema = z
  .strictObject({
    ...resourceFields,
    expectedValue: lockValueSchema,
    reason: reasonSchema,
    /** The incident this is for: an http(s) link kept in the audit entry. */
    incident: incidentUrlSchema.optional(),
    deadlineMs: z
      .number()
      .int("must be a whole number of milliseconds")
      .min(MIN_REVOKE_DEADLINE_MS, `must be at least ${MIN_REVOKE_DEADLINE_MS} ms`)
      .max(MAX_REVOKE_DEADLINE_MS, `must be at most ${MAX_REVOKE_DEADLINE_MS} ms`)
      .optional(),
  })
  .refine(oneResource.check, oneResource.params);
export type RevokeRequest = z.infer<typeof revokeRequestSchema>;

export const revokeNodeResultSchema = z.object({
  nodeId: nodeIdSchema,
  outcome: z.enum([
    /** The marker was written: the node holds expectedValue. */
    "marked",
    /** The key was not there. */
    "absent",
    /** The node holds another value (or a key that is no string lock): nothing written. */
    "mismatch",
    /** The node holds expectedValue but nothing was written, because another node holds a different value. */
    "kept",
    "unreachable",
  ]),
  /** The value found on the node; null when absent or unreachable. */
  value: z.string().nullable(),
  latencyMs: z.number(),
});
export type RevokeNodeResult = z.infer<typeof revokeNodeResultSchema>;

/** 202 of revoke (the holder lets go later: the audit trail says when); also the `details` of its 409. */
export const revokeResponseSchema = z.object({
  serverTime: epochMsSchema,
  resource: z.string(),
  /** Id of the audit entry; the marker and the notice carry it. */
  auditId: z.string(),
  /** When the holder must have let go (console clock, epoch ms); past it, force-release. */
  deadlineAt: epochMsSchema,
  /** The holder session asked. */
  sessionId: z.string(),
  nodes: z.array(revokeNodeResultSchema),
});
export type RevokeResponse = z.infer<typeof revokeResponseSchema>;
