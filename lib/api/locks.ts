/**
 * `GET /api/locks` (snapshot) and `GET /api/locks/{resource}`. Over 300 lines, one job: the two
 * routes' shapes share the row and node schemas, and a semaphore's or read-write lock's group is a
 * row of the same shape; split, each half would import the other.
 */
import { z } from "zod";
import { epochMsSchema, nodeIdSchema } from "./common";
import { lockSortSchema, sortOrderSchema } from "./lock-sort";
import { indexModeSchema } from "./node-index";

export const lockStateSchema = z.enum([
  /** One value on at least a majority of nodes, and no other value anywhere. */
  "held",
  /** No value reaches a majority (a failed or expiring acquire, or nodes lost the key). */
  "partial",
  /** Different values on different nodes. */
  "conflict",
  /**
   * "Being released": a force-release replaced the holder's value with a tombstone, which holds the
   * resource until the holder acknowledges or the replaced value's validity ends. Never free.
   */
  "releasing",
]);
export type LockState = z.infer<typeof lockStateSchema>;

/** Wire format the key was recognised as. */
export const lockFormatSchema = z.enum([
  /** A plain string value with PX TTL: this library, node-redlock, redsync, redlock-py, redlock-rb. */
  "string",
  /** Redisson: a hash whose field `<uuid>:<threadId>` holds the re-entry count. */
  "redisson-hash",
  /** A force-release's tombstone, `rlx:<token of the replaced value>:<json>` (docs/holder-sessions.md). */
  "tombstone",
  /**
   * redis-semaphore's Semaphore (read only): a sorted set `semaphore:<key>` with a TTL whose
   * members are its holders' identifiers (UUIDs) scored by their last acquire or refresh (epoch ms).
   */
  "redis-semaphore",
]);
export type LockFormat = z.infer<typeof lockFormatSchema>;

/**
 * Who holds a lock of this library, as its value says (`rl1:<token>:<json>`), or as the owner entry
 * of a 1.x lock (`redlock:owner:<resource>`, shown only when it belongs to the holder value read
 * with it): labels (service, host, pid…), when the lock was acquired (the acquiring client's clock,
 * epoch ms), the TTL it was acquired with (null for 1.x) and, for 1.x only, how many times it was
 * extended (null for 2.x: a value held longer than `ttlMs` was extended, see `ownerExtension`).
 */
export const ownerInfoSchema = z.object({
  /** Each label cut to LABEL_VALUE_MAX_CHARS, at most LABELS_MAX of them (see truncatedLabels). */
  labels: z.record(z.string(), z.string()),
  /**
   * Labels whose value was cut, each with its original size (bytes when the node's read cut it,
   * else characters): the UI shows "… (truncated, 3.0 MB)". Absent when none was cut.
   */
  truncatedLabels: z.record(z.string(), z.number().int().nonnegative()).optional(),
  acquiredAt: epochMsSchema,
  ttlMs: z.number().int().positive().nullable(),
  extensions: z.number().int().nonnegative().nullable(),
});
export type OwnerInfo = z.infer<typeof ownerInfoSchema>;

/**
 * What the nodes tell of a holder's extensions at `nowMs`: "extended 3×" (1.x counted them),
 * "extended" (held longer than the TTL it was acquired with), or null when nothing shows one.
 */
export function ownerExtension(owner: OwnerInfo, nowMs: number): string | null {
  if (owner.extensions !== null)
    return owner.extensions > 0 ? `extended ${owner.extensions}×` : null;
  return owner.ttlMs !== null && nowMs - owner.acquiredAt > owner.ttlMs ? "extended" : null;
}

/** Who holds a lock: the owner entry of this library, or only the key's format for other clients. */
export const lockOwnerSchema = z.discriminatedUnion("kind", [
  ownerInfoSchema.extend({ kind: z.literal("labelled") }),
  /** No owner entry for the holder value: another library (or `owner: false`); the format tells which kind. */
  z.object({ kind: z.literal("unknown"), format: lockFormatSchema }),
]);
export type LockOwner = z.infer<typeof lockOwnerSchema>;

/** Contenders waiting for a resource (`redlock:waiters:<resource>`), live entries only. */
export const waitersSummarySchema = z.object({
  /** Waiters listed on the node that lists the most (each contender registers on every node). */
  count: z.number().int().nonnegative(),
  /** When the longest-waiting contender started waiting (its clock, epoch ms); null when none. */
  oldestSince: epochMsSchema.nullable(),
});
export type WaitersSummary = z.infer<typeof waitersSummarySchema>;

export const lockFlagSchema = z.enum([
  /** Held longer than CONSOLE_LONG_HELD_MS (by its owner entry's acquiredAt). */
  "long-held",
  /** The majority value has no TTL: it never expires on its own. */
  "no-ttl",
  /** The oldest waiter has waited longer than CONSOLE_LONG_WAIT_MS. */
  "long-wait",
]);
export type LockFlag = z.infer<typeof lockFlagSchema>;

/** What one node holds for a resource. */
export const nodeHolderSchema = z.object({
  nodeId: nodeIdSchema,
  /** False when the node did not answer: its holder is unknown, not absent. */
  reachable: z.boolean(),
  /** The holder's value (a Redisson hash: its holder field); null when absent or unreachable. */
  value: z.string().nullable(),
  /**
   * The value's full size when `value` is not the whole value: cut to LIST_VALUE_MAX_CHARS in lists
   * (characters), or cut by the read itself past READ_VALUE_MAX_BYTES (bytes on the node).
   */
  valueLength: z.number().int().optional(),
  /**
   * `sha1:` + 12 hex digits of the SHA-1 of the whole value (null with no value). Anonymous readers
   * get this in `value` too (values are tokens); force-release accepts it as `expectedDigest`.
   */
  valueDigest: z.string().nullable().optional(),
  /** Time left in ms; -1: the key never expires; null when absent or unreachable. */
  pttlMs: z.number().nullable(),
  format: lockFormatSchema.nullable(),
  /** Redisson re-entry count; null for plain string locks. */
  holdCount: z.number().nullable(),
  /** This node's owner entry for `value`; null when none matches it (absent, stale or foreign). */
  owner: ownerInfoSchema.nullable(),
});
export type NodeHolder = z.infer<typeof nodeHolderSchema>;

/** Which library's semaphore a row shows: this library's, or another's read (never acted on). */
export const semaphoreKindSchema = z.enum(["redlock", "redis-semaphore"]);
export type SemaphoreKind = z.infer<typeof semaphoreKindSchema>;

export const semaphoreSummarySchema = z.object({
  kind: semaphoreKindSchema,
  /** The permit count k; null when the format does not store it (redis-semaphore). */
  permits: z.number().int().positive().nullable(),
  /** Permits in use (see lockRowSchema.semaphore). */
  used: z.number().int().nonnegative(),
});
export type SemaphoreSummary = z.infer<typeof semaphoreSummarySchema>;

export const readWriteSummarySchema = z.object({
  /** Reader slots, as recorded at `redlock:rwlock:{name}`. */
  readerSlots: z.number().int().positive(),
  /** Readers holding their slot on a majority. */
  readers: z.number().int().nonnegative(),
  /** Whether a writer holds `{name}#w` on a majority. */
  writer: z.boolean(),
});
export type ReadWriteSummary = z.infer<typeof readWriteSummarySchema>;

export const lockRowSchema = z.object({
  /** The key, decoded as UTF-8 (invalid bytes shown as U+FFFD; see resourceBase64). */
  resource: z.string(),
  /** The key's exact bytes, base64, present only when they are not valid UTF-8. */
  resourceBase64: z.string().optional(),
  state: lockStateSchema,
  /** The value held on most nodes (ties: the one with the longest validity); null if none. */
  value: z.string().nullable(),
  /** The full size when `value` was cut (see nodeHolderSchema.valueLength). */
  valueLength: z.number().int().optional(),
  /** The digest of `value` (see nodeHolderSchema.valueDigest). */
  valueDigest: z.string().nullable().optional(),
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
  /** Who holds `value`: its owner entry (the one extended most, among the nodes holding it), or unknown. */
  owner: lockOwnerSchema,
  /** When `value` was acquired (owner entry, epoch ms); null when unknown. Age = serverTime − heldSince. */
  heldSince: epochMsSchema.nullable(),
  waiters: waitersSummarySchema,
  /** Why the lock needs a look: long-held, no TTL, a long wait. Empty for a healthy lock. */
  flags: z.array(lockFlagSchema),
  /**
   * Present when the row is a semaphore (issue 44): one row for all its permits, `resource` its
   * name. This library's: its permits `{name}#0…` folded, `permits` the count recorded at
   * `redlock:semaphore:{name}`. redis-semaphore's (read-only): its sorted set, `permits` null
   * (that library does not store its limit). `used`: permits held on a majority (this library's),
   * or members of the set (redis-semaphore's).
   */
  semaphore: semaphoreSummarySchema.optional(),
  /**
   * Present when the row is a read-write lock of this library: one row for its writer `{name}#w`
   * and reader slots `{name}#r<i>`, `resource` its name.
   */
  readWrite: readWriteSummarySchema.optional(),
  /** Lists only: the last hour of the lock's history (see /api/events). */
  activity: z
    .object({
      /** Acquisitions (changes of hands) in the last hour, counted in 5-minute steps. */
      handsLastHour: z.number().int(),
      /** Holds that expired instead of being released in the last hour. */
      expiredLastHour: z.number().int(),
    })
    .optional(),
});
export type LockRow = z.infer<typeof lockRowSchema>;

/**
 * The one validity formula of the console: the server-clock instant (epoch ms) at which a time left,
 * read when the response's `serverTime` was taken, runs out. It turns a row's `validityMs` or a
 * node's `pttlMs` into the instant a countdown ticks towards, on the server's clock so a browser
 * with a wrong clock still counts right. null when there is nothing to count (no majority, no key);
 * Infinity when it never runs out (-1: the key has no TTL).
 */
export function expiresAtMs(timeLeftMs: number | null, serverTimeMs: number): number | null {
  if (timeLeftMs === null) return null;
  return timeLeftMs < 0 ? Number.POSITIVE_INFINITY : serverTimeMs + timeLeftMs;
}

/** A snapshot row as the console shows and sorts it: the API's row plus the instant its validity ends. */
export interface LiveLockRow extends LockRow {
  /** `expiresAtMs(validityMs, serverTime)`: null without a majority, Infinity when it never expires. */
  validUntilMs: number | null;
}

export const DEFAULT_PAGE_LIMIT = 100;
/** Values in `GET /api/locks` rows are cut to this many characters (one 5 MB value must not make every page 10 MB). */
export const LIST_VALUE_MAX_CHARS = 256;
export const MAX_PAGE_LIMIT = 1000;
/** Owner label values (and names) are cut to this many characters wherever they are served. */
export const LABEL_VALUE_MAX_CHARS = 256;
/** At most this many owner labels are served per holder. */
export const LABELS_MAX = 32;

/** Query of `GET /api/locks`. All fields arrive as strings. */
export const locksQuerySchema = z.object({
  /** Glob (Redis MATCH syntax: * ? [abc] \x) on resource names; applied to the snapshot. */
  // Matched against every row of a snapshot: a long pattern multiplies that work, so keep it short.
  match: z.string().max(256).optional(),
  state: lockStateSchema.optional(),
  /** Opaque; from a previous page's nextCursor. */
  cursor: z.string().max(4096).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(DEFAULT_PAGE_LIMIT),
  /** Order of the rows across every page (lock-sort.ts); absent: by resource. Unknown: 400. */
  sort: lockSortSchema.optional(),
  /** Absent: ascending. */
  order: sortOrderSchema.optional(),
  /** Owner label filter over every lock of the index: `service=billing`, or a bare label name. */
  owner: z.string().max(256).optional(),
});
export type LocksQuery = z.infer<typeof locksQuerySchema>;

export const lockCountsSchema = z.object({
  held: z.number().int(),
  partial: z.number().int(),
  conflict: z.number().int(),
  releasing: z.number().int(),
});
export type LockCounts = z.infer<typeof lockCountsSchema>;

/** Per node: whether the index holds the node's whole keyspace yet, and how fresh it is. */
export const listingNodeSchema = z.object({
  nodeId: nodeIdSchema,
  mode: indexModeSchema,
  /** See nodeIndexSchema.asOf: null until the node's first listing completes. */
  asOf: epochMsSchema.nullable(),
  /** How far a listing in progress got (0..1, estimated); null when none runs or unknown. */
  fraction: z.number().min(0).max(1).nullable(),
});

export const listingSchema = z.object({
  /**
   * True once every reachable node has been listed completely and is followed, with nothing left
   * out by the key cap: rows are whole.
   */
  complete: z.boolean(),
  nodes: z.array(listingNodeSchema),
  /**
   * With notifications on, key shapes that never held a lock are not read on every change (their
   * keys given an expiry are, up to a bound per second): how many are skipped over the nodes, how
   * late a lock under them may show at worst, and that in words. null when none is skipped.
   */
  skippedShapes: z
    .object({
      shapes: z.number().int().nonnegative(),
      lateByAtMostMs: z.number().nonnegative(),
      note: z.string(),
    })
    .nullable(),
});
export type Listing = z.infer<typeof listingSchema>;

export const locksResponseSchema = z.object({
  /** Console clock when the page was cut (epoch ms): base for client countdowns. */
  serverTime: epochMsSchema,
  /** How long cutting the page from the index took, in ms. */
  scanMs: z.number(),
  /** Rows of this page, in the query's order (by resource unless `sort` says otherwise). */
  items: z.array(lockRowSchema),
  /** Cursor of the next page; null on the last page. */
  nextCursor: z.string().nullable(),
  /** Rows matching match/state/owner across all pages. */
  total: z.number().int(),
  /** Rows by state across the whole snapshot (before filters). */
  counts: lockCountsSchema,
  /** Nodes that did not answer the scan: their holders show as unreachable. */
  unreachableNodes: z.array(nodeIdSchema),
  /**
   * True when a node holds more lock keys than CONSOLE_SCAN_MAX_KEYS: rows may be missing, and
   * `listing.complete` is false until a listing fits under the cap again.
   */
  truncated: z.boolean(),
  /** Whether the rows are whole yet (a listing may still run) and how fresh each node is. */
  listing: listingSchema,
});
export type LocksResponse = z.infer<typeof locksResponseSchema>;
