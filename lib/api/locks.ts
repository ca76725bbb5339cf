/** `GET /api/locks` (snapshot) and `GET /api/locks/{resource}`. */
import { z } from "zod";
import { epochMsSchema, nodeIdSchema } from "./common";

export const lockStateSchema = z.enum([
  /** One value on at least a majority of nodes, and no other value anywhere. */
  "held",
  /** No value reaches a majority (a failed or expiring acquire, or nodes lost the key). */
  "partial",
  /** Different values on different nodes. */
  "conflict",
]);
export type LockState = z.infer<typeof lockStateSchema>;

/** Wire format the key was recognised as. */
export const lockFormatSchema = z.enum([
  /** A plain string value with PX TTL: this library, node-redlock, redsync, redlock-py, redlock-rb. */
  "string",
  /** Redisson: a hash whose field `<uuid>:<threadId>` holds the re-entry count. */
  "redisson-hash",
]);
export type LockFormat = z.infer<typeof lockFormatSchema>;

/** What one node holds for a resource. */
export const nodeHolderSchema = z.object({
  nodeId: nodeIdSchema,
  /** False when the node did not answer: its holder is unknown, not absent. */
  reachable: z.boolean(),
  /** The holder's value (a Redisson hash: its holder field); null when absent or unreachable. */
  value: z.string().nullable(),
  /**
   * Lists only: the value's full length in characters when `value` was cut to its first
   * LIST_VALUE_MAX_CHARS (the one-resource read always carries the whole value).
   */
  valueLength: z.number().int().optional(),
  /** Time left in ms; -1: the key never expires; null when absent or unreachable. */
  pttlMs: z.number().nullable(),
  format: lockFormatSchema.nullable(),
  /** Redisson re-entry count; null for plain string locks. */
  holdCount: z.number().nullable(),
});
export type NodeHolder = z.infer<typeof nodeHolderSchema>;

export const lockRowSchema = z.object({
  /** The key, decoded as UTF-8 (invalid bytes shown as U+FFFD; see resourceBase64). */
  resource: z.string(),
  /** The key's exact bytes, base64, present only when they are not valid UTF-8. */
  resourceBase64: z.string().optional(),
  state: lockStateSchema,
  /** The value held on most nodes (ties: the one with the longest validity); null if none. */
  value: z.string().nullable(),
  /** Lists only: the full length when `value` was cut (see nodeHolderSchema.valueLength). */
  valueLength: z.number().int().optional(),
  format: lockFormatSchema,
  /** How many nodes hold `value`. */
  quorum: z.number().int(),
  /** Votes needed: floor(N/2)+1. */
  quorumSize: z.number().int(),
  /**
   * How long `value` stays on a majority: the quorumSize-th largest PTTL among its nodes, in ms.
   * null when `value` is on fewer than quorumSize nodes; -1 when it never expires.
   */
  validityMs: z.number().nullable(),
  /** One entry per configured node, in node order. */
  nodes: z.array(nodeHolderSchema),
});
export type LockRow = z.infer<typeof lockRowSchema>;

export const DEFAULT_PAGE_LIMIT = 100;
/** Values in `GET /api/locks` rows are cut to this many characters (one 5 MB value must not make every page 10 MB). */
export const LIST_VALUE_MAX_CHARS = 256;
export const MAX_PAGE_LIMIT = 1000;

/** Query of `GET /api/locks`. All fields arrive as strings. */
export const locksQuerySchema = z.object({
  /** Glob (Redis MATCH syntax: * ? [abc] \x) on resource names; applied to the snapshot. */
  // Matched against every row of a snapshot: a long pattern multiplies that work, so keep it short.
  match: z.string().max(256).optional(),
  state: lockStateSchema.optional(),
  /** Opaque; from a previous page's nextCursor. */
  cursor: z.string().max(4096).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(DEFAULT_PAGE_LIMIT),
});
export type LocksQuery = z.infer<typeof locksQuerySchema>;

export const lockCountsSchema = z.object({
  held: z.number().int(),
  partial: z.number().int(),
  conflict: z.number().int(),
});
export type LockCounts = z.infer<typeof lockCountsSchema>;

export const locksResponseSchema = z.object({
  /** Console clock when the snapshot was taken (epoch ms): base for client countdowns. */
  serverTime: epochMsSchema,
  /** How long the snapshot took to build, in ms. */
  scanMs: z.number(),
  /** Rows of this page, sorted by resource. */
  items: z.array(lockRowSchema),
  /** Cursor of the next page; null on the last page. */
  nextCursor: z.string().nullable(),
  /** Rows matching match/state across all pages. */
  total: z.number().int(),
  /** Rows by state across the whole snapshot (before filters). */
  counts: lockCountsSchema,
  /** Nodes that did not answer the scan: their holders show as unreachable. */
  unreachableNodes: z.array(nodeIdSchema),
  /** True when a node held more keys than the scan budget: rows may be missing. */
  truncated: z.boolean(),
});
export type LocksResponse = z.infer<typeof locksResponseSchema>;

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

/** A snapshot row whose nodes also carry their fencing counters. */
export const lockDetailSchema = lockRowSchema.extend({ nodes: z.array(nodeHolderDetailSchema) });
export type LockDetail = z.infer<typeof lockDetailSchema>;

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
});
export type LockResponse = z.infer<typeof lockResponseSchema>;
