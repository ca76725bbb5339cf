/**
 * `GET /api/sessions`, `GET /api/sessions/{id}`, `POST /api/sessions/{id}/release`: holder sessions
 * (the processes holding locks, docs/holder-sessions.md), not the console's login (session.ts).
 */
import { z } from "zod";
import { incidentUrlSchema } from "./audit";
import {
  MAX_REASON_LENGTH,
  MAX_REVOKE_DEADLINE_MS,
  MIN_REASON_LENGTH,
  MIN_REVOKE_DEADLINE_MS,
  forceReleaseModeSchema,
  forceReleaseNodeResultSchema,
  revokeNodeResultSchema,
} from "./actions";
import { epochMsSchema, nodeIdSchema } from "./common";
import {
  holderSessionIdSchema,
  holderSessionSchema,
  holderSessionStateSchema,
} from "./holder-session";
import { lockStateSchema } from "./locks";

/** Locks listed per session at most (`locksTotal` counts them all). */
export const MAX_SESSION_LOCKS_LISTED = 100;
/** Waits listed per session at most. */
export const MAX_SESSION_WAITS_LISTED = 100;
/** Sessions listed at most, those holding locks first. */
export const MAX_SESSIONS_LISTED = 500;
/** Locks one release of a session acts on at most; the rest stay (`remaining`). */
export const MAX_SESSION_RELEASE_LOCKS = 256;

/** A lock a session holds (or whose tombstone still names it: state "releasing"). */
export const holderSessionLockSchema = z.object({
  resource: z.string(),
  /** The key's bytes, base64, when they are not valid UTF-8. */
  resourceBase64: z.string().optional(),
  state: lockStateSchema,
  /** The majority value (cut to LIST_VALUE_MAX_CHARS). */
  value: z.string(),
  /** How long the value stays on a majority, ms; null without one; -1: no TTL. */
  validityMs: z.number().nullable(),
});
export type HolderSessionLock = z.infer<typeof holderSessionLockSchema>;

/** A resource a session waits for (its waiter entry names the session). */
export const holderSessionWaitSchema = z.object({
  resource: z.string(),
  resourceBase64: z.string().optional(),
  /** The wait's id (16 hex chars). */
  waiterId: z.string(),
  /** When it started waiting (its clock, epoch ms). */
  since: epochMsSchema,
  /** When its wait ends at the latest (epoch ms). */
  expiresAt: epochMsSchema,
});
export type HolderSessionWait = z.infer<typeof holderSessionWaitSchema>;

export const holderSessionSummarySchema = holderSessionSchema.extend({
  id: holderSessionIdSchema,
  /** When the process started its session (its clock, epoch ms), from the heartbeat; null if unread. */
  startedAt: epochMsSchema.nullable(),
  locks: z.array(holderSessionLockSchema),
  /** Every lock the index shows for the session (locks lists MAX_SESSION_LOCKS_LISTED at most). */
  locksTotal: z.number().int(),
  waits: z.array(holderSessionWaitSchema),
});
export type HolderSessionSummary = z.infer<typeof holderSessionSummarySchema>;

/** How much of the nodes the listing saw: it reads the live index, waiters and a bounded SCAN. */
export const holderSessionsCoverageSchema = z.object({
  /** Every reachable node is listed in the live index: every lock held is seen. */
  indexComplete: z.boolean(),
  /**
   * The SCAN for idle sessions' keys went round the whole keyspace within the last window (the
   * list only; one session's read asks for its key directly and says false).
   */
  scanComplete: z.boolean(),
  /** Resources with waiters whose lists were read (at most a bounded number per request). */
  waitListsRead: z.number().int(),
  /** Resources with waiters whose lists were not read this time (over the budget). */
  waitListsSkipped: z.number().int(),
});
export type HolderSessionsCoverage = z.infer<typeof holderSessionsCoverageSchema>;

export const holderSessionsResponseSchema = z.object({
  serverTime: epochMsSchema,
  /** Live sessions: each holds or waits for something, or has a heartbeat on some node. */
  sessions: z.array(holderSessionSummarySchema),
  /** More sessions were found than MAX_SESSIONS_LISTED. */
  truncated: z.boolean(),
  coverage: holderSessionsCoverageSchema,
});
export type HolderSessionsResponse = z.infer<typeof holderSessionsResponseSchema>;

export const holderSessionResponseSchema = z.object({
  serverTime: epochMsSchema,
  session: holderSessionSummarySchema,
  coverage: holderSessionsCoverageSchema,
});
export type HolderSessionResponse = z.infer<typeof holderSessionResponseSchema>;

/**
 * Release everything one holder session holds: with `preview: true`, only say what would be done.
 * A session that is not gone is asked first (a revoke of each lock, one deadline for all), as the
 * lock page does; `force: true` force-releases every lock at once whatever its liveness.
 */
export const holderSessionReleaseRequestSchema = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(MIN_REASON_LENGTH, `must be at least ${MIN_REASON_LENGTH} characters`)
    .max(MAX_REASON_LENGTH, `must be at most ${MAX_REASON_LENGTH} characters`),
  /** The incident this is for: an http(s) link kept in the audit entry. */
  incident: incidentUrlSchema.optional(),
  /** @default false */
  preview: z.boolean().optional(),
  /** Force-release (tombstone) every lock without asking, even of an alive session. @default false */
  force: z.boolean().optional(),
  /** When asking: how long the holder has to let go of every lock, ms. @default DEFAULT_REVOKE_DEADLINE_MS */
  deadlineMs: z
    .number()
    .int()
    .min(MIN_REVOKE_DEADLINE_MS, `must be at least ${MIN_REVOKE_DEADLINE_MS} ms`)
    .max(MAX_REVOKE_DEADLINE_MS, `must be at most ${MAX_REVOKE_DEADLINE_MS} ms`)
    .optional(),
});
export type HolderSessionReleaseRequest = z.infer<typeof holderSessionReleaseRequestSchema>;

export const holderSessionReleaseLockSchema = z.object({
  resource: z.string(),
  resourceBase64: z.string().optional(),
  /** The value the index showed, compared on every node before anything is written. */
  value: z.string(),
  /**
   * What is (preview) or was done to it, decided per batch from the session's liveness read fresh:
   * "ask" (a revoke: the holder lets go by `deadlineAt`) unless the session reads gone or the
   * operator forces; "force" (a force-release).
   */
  action: z.enum(["ask", "force"]),
  /** The liveness read that decided `action` (read again before every batch of locks). */
  holderState: holderSessionStateSchema,
  /** What a force-release does (preview), did, or would do past the deadline of an ask. */
  mode: forceReleaseModeSchema,
  /**
   * After the release: "released" (forced), "asked" (the revoke marker is on a majority), or why
   * neither: "value_changed", "absent", "unavailable" (too few nodes answered to mark a majority).
   * Absent in a preview.
   */
  outcome: z.enum(["released", "asked", "value_changed", "absent", "unavailable"]).optional(),
  deletedCount: z.number().int().optional(),
  tombstonedCount: z.number().int().optional(),
  /** Nodes whose revoke marker was written (an ask). */
  markedCount: z.number().int().optional(),
  nodes: z.array(z.union([forceReleaseNodeResultSchema, revokeNodeResultSchema])).optional(),
});
export type HolderSessionReleaseLock = z.infer<typeof holderSessionReleaseLockSchema>;

export const holderSessionReleaseResponseSchema = z.object({
  serverTime: epochMsSchema,
  sessionId: holderSessionIdSchema,
  /** The session's liveness, read fresh from the nodes before the first batch (each lock says its own). */
  holderState: holderSessionStateSchema,
  preview: z.boolean(),
  /** The one audit entry of the release; null for a preview (nothing audited). */
  auditId: z.string().nullable(),
  /** The one deadline of every lock asked to be released (epoch ms); null when none was asked. */
  deadlineAt: epochMsSchema.nullable(),
  locks: z.array(holderSessionReleaseLockSchema),
  /** Locks beyond MAX_SESSION_RELEASE_LOCKS, left for another release. */
  remaining: z.number().int(),
  /** Tombstones of this session already in place (being released): left as they are. */
  alreadyReleasing: z.number().int(),
  /** The index was still listing a node: a lock it has not seen yet is not in `locks`. */
  indexComplete: z.boolean(),
  unreachableNodes: z.array(nodeIdSchema),
});
export type HolderSessionReleaseResponse = z.infer<typeof holderSessionReleaseResponseSchema>;
