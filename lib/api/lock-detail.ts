/** `GET /api/locks/{resource}`: one lock read fresh from every node, for its page. */
import { z } from "zod";
import { epochMsSchema, nodeIdSchema } from "./common";
import { holderSessionSchema } from "./holder-session";
import {
  lockRowSchema,
  nodeHolderSchema,
  readWriteSummarySchema,
  semaphoreSummarySchema,
} from "./locks";

/** A fencing token: a count of fenced acquires, strictly increasing per resource. */
const fencingTokenSchema = z.number().int().nonnegative().nullable();

/** One node in the one-resource read: its holder, plus the fencing counter kept on that node. */
export const nodeHolderDetailSchema = nodeHolderSchema.extend({
  /**
   * The counter at `redlock:fence:<resource>` on this node: the highest token recorded there.
   * null when the node has none (never fenced, or restarted empty) or did not answer.
   */
  fencingToken: fencingTokenSchema,
});
export type NodeHolderDetail = z.infer<typeof nodeHolderDetailSchema>;

/** One contender waiting for the resource, merged across the nodes that list it. */
export const waiterSchema = z.object({
  /** Random id of the contender's wait (16 hex chars). */
  id: z.string(),
  labels: z.record(z.string(), z.string()),
  /** When it started waiting (its clock, epoch ms). */
  since: epochMsSchema,
  /** When its wait ends at the latest (epoch ms): the latest among the nodes. */
  expiresAt: epochMsSchema,
  /** Nodes listing it. */
  nodeCount: z.number().int(),
});
export type Waiter = z.infer<typeof waiterSchema>;

/** Most waiters read per node for the detail view. */
export const MAX_WAITERS_LISTED = 100;

/** A snapshot row whose nodes also carry their fencing counters, with the waiters listed. */
export const lockDetailSchema = lockRowSchema.extend({
  nodes: z.array(nodeHolderDetailSchema),
  /** Live waiters, longest waiting first (at most MAX_WAITERS_LISTED per node are read). */
  waiterList: z.array(waiterSchema),
});
export type LockDetail = z.infer<typeof lockDetailSchema>;

/** One member of a semaphore or read-write lock: an ordinary lock on its own key. */
export const groupMemberSchema = z.object({
  /** A semaphore's permit, or a read-write lock's writer or reader slot. */
  kind: z.enum(["permit", "writer", "reader"]),
  /** The permit's or reader slot's index; null for the writer. */
  index: z.number().int().nonnegative().nullable(),
  /** The member's key (`{name}#2`): force-release and revoke act on it as on any lock. */
  resource: z.string(),
  /** The key's bytes, base64, when they are not valid UTF-8. */
  resourceBase64: z.string().optional(),
  /** Its holder, read fresh from every node; null when the member is free. */
  lock: lockRowSchema.nullable(),
  /** The session of its holder (see lockResponseSchema.holderSession); null when free. */
  holderSession: holderSessionSchema.nullable(),
});
export type GroupMember = z.infer<typeof groupMemberSchema>;

/**
 * A semaphore or read-write lock named by the resource (issue 44): its summary and every member,
 * read fresh. Another library's semaphore read by the console is `readOnly`: no action applies.
 */
export const lockGroupDetailSchema = z.object({
  kind: z.enum(["semaphore", "read-write"]),
  semaphore: semaphoreSummarySchema.optional(),
  readWrite: readWriteSummarySchema.optional(),
  /** Permits in order, or the writer then the reader slots in order. */
  members: z.array(groupMemberSchema),
  /** True for a format the console only reads (redis-semaphore's): force-release is refused. */
  readOnly: z.boolean(),
});
export type LockGroupDetail = z.infer<typeof lockGroupDetailSchema>;

/** `GET /api/locks/{resource}`: read fresh from every node (not from the shared snapshot). */
export const lockResponseSchema = z.object({
  serverTime: epochMsSchema,
  /** null when no node holds the resource. */
  lock: lockDetailSchema.nullable(),
  /**
   * The latest token recorded for this resource; the current holder's when it acquired with
   * fencing. The highest counter among the nodes that answered (the library records a token on a
   * majority, so a minority lagging behind does not hide it). Outlives the lock, so a free resource
   * shows the last one handed out; null when no answering node has a counter.
   */
  fencingToken: fencingTokenSchema,
  unreachableNodes: z.array(nodeIdSchema),
  /**
   * The session of the holder of `lock.value` (of a tombstone: of the holder it replaced), its
   * liveness read from the nodes; null when the resource is free. A holder whose value carries no
   * session id is `{ id: null, state: "unknown", lastSeenAt: null, labels: {} }`.
   */
  holderSession: holderSessionSchema.nullable(),
  /**
   * Present when the resource names a semaphore or read-write lock (its recorded count found on a
   * node): its members, each an ordinary lock with its own key. `lock` is then the key named
   * exactly so, usually free.
   */
  group: lockGroupDetailSchema.optional(),
  /** How the list (the live index, `/api/locks`) compares with this fresh read. */
  index: z.object({
    /**
     * True when this read found a lock the list did not show (a key the index missed, e.g. under a
     * key shape skipped on notifications): the console read the key into its index at once.
     */
    missedLock: z.boolean(),
    /** The same in words, with what was done; null when the list agrees or is still being built. */
    note: z.string().nullable(),
  }),
});
export type LockResponse = z.infer<typeof lockResponseSchema>;
