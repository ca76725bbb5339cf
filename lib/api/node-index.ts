/** How the live index follows one node (`NodeIndex`, part of `GET /api/nodes`). */
import { z } from "zod";
import { epochMsSchema } from "./common";

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
  /**
   * The node's notify-keyspace-events lost flags the index needs while it was watched (a CONFIG SET
   * at run time): notifications may have been missed since the flags were last seen whole.
   */
  "notifications",
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
 * lock are skipped on notifications after many reads, save their expiry samples (a key given an
 * expiry is read, up to a bound per second: every lock has one) and one changed key per second; the
 * periodic resync still lists them. A lock under such a shape shows `lateByAtMostMs` late at worst,
 * and its shape is read again at once.
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
  /**
   * Keys of skipped shapes that an event gave an expiry: read per second, the bound per second
   * (`readsPerSMax`, CONSOLE_SHAPE_SAMPLES_PER_S), and left unread beyond it per second.
   */
  expirySamples: z.object({
    readsPerS: z.number().nonnegative(),
    readsPerSMax: z.number().nonnegative(),
    unreadPerS: z.number().nonnegative(),
  }),
  /**
   * How late a lock under a skipped shape can show at worst: about a second while every key given
   * an expiry is read; the resync interval plus a listing when some go unread (or sampling is off).
   */
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
   * Keys matching LOCK_MATCH that the last complete listing skipped: no lock of a recognised format,
   * or a name longer than MAX_RESOURCE_BYTES (no route could act on it), never read (see
   * listingProgressSchema.keysSkipped); 0 before the first listing.
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
