/**
 * `GET /api/events` (transitions across all locks), `GET /api/events/stream` (the same, pushed as
 * server-sent events) and `GET /api/locks/{resource}/timeline` (one lock's transitions).
 * One job: the transition contract. It is long because a transition says in fields every cause the
 * console knows (expiry cause, possible overlap, after-expired for stored history), each documented.
 */
import { z } from "zod";
import {
  epochMsSchema,
  MAX_RESOURCE_BASE64_LENGTH,
  MAX_RESOURCE_BYTES,
  nodeIdSchema,
} from "./common";
import { holderSessionIdSchema } from "./holder-session";
import { ownerInfoSchema } from "./locks";

export const transitionKindSchema = z.enum([
  /** A value reached a majority of nodes: a new holder. */
  "acquired",
  /** The holder's value stayed and its expiry on a majority moved later. */
  "extended",
  /** The holder's value left a majority by deletes (its holder released it). */
  "released",
  /**
   * The holder's value left a majority by expiry: it ran out while held (crash, hang, long pause);
   * `cause` says what the console then read of the holder's session.
   */
  "expired",
  /**
   * A force-release from the console ended the hold: the value was deleted, or replaced by a
   * tombstone (`releasing` follows). `by`, `reason` and `auditId` say who, why and which audit entry.
   */
  "force-released",
  /**
   * "Being released": a force-release's tombstone (`rlx:…`) holds a majority in place of the
   * holder's value, so nobody takes the lock until the holder acknowledges or its validity ends.
   * `value` is the tombstone; `owner` the replaced holder's when the console saw it.
   */
  "releasing",
  /** The holder's library deleted the tombstone before its TTL: released by the holder (`heldMs` after the force-release). */
  "release-acknowledged",
  /** The tombstone ran out unacknowledged: the replaced holder's last validity is over, the lock is free. */
  "reservation-ended",
  /** A force-release of the tombstone itself lifted it: the operator accepted that the holder may not have stopped. */
  "reservation-lifted",
  /**
   * A node's maxmemory policy deleted a lock key: always an error (the lock's safety is gone there).
   * On a minority of nodes the hold goes on beside it; a hold that lost its majority mostly to
   * evictions ends as one `evicted` with `heldMs` (never as "released": nobody released it).
   */
  "evicted",
  /** Different values on different nodes for longer than EPISODE_MIN_MS. */
  "conflict",
  /** A value on some nodes but no majority, for longer than EPISODE_MIN_MS. */
  "partial",
  /**
   * The console could not see every change for a while (a node was being listed, the console was
   * not running): what happened between `since` and `at` is unknown, not "nothing".
   */
  "gap",
]);
export type TransitionKind = z.infer<typeof transitionKindSchema>;

/**
 * What the console read of a holder's session once its hold had expired: "gone" (connections
 * closed, heartbeat late: probably crashed, never proof), "unresponsive" (heartbeat late: paused or
 * blocked), "alive" (heartbeating: it failed to extend), "unknown" (no session id in the value, or a
 * majority of the nodes did not answer) or "not-checked" (too many sessions were being read at once).
 */
export const expirySessionStateSchema = z.enum([
  "gone",
  "unresponsive",
  "alive",
  "unknown",
  "not-checked",
]);
export type ExpirySessionState = z.infer<typeof expirySessionStateSchema>;

/** Why a hold expired while held, as far as the console knew (`expired` transitions only). */
export const expiryCauseSchema = z.object({
  session: expirySessionStateSchema,
  /** The holder session named by the value; null when it names none. */
  sessionId: holderSessionIdSchema.nullable(),
  /** Console clock (epoch ms) of the session's freshest heartbeat; null when none was read. */
  lastSeenAt: epochMsSchema.nullable(),
  /** When the session was read (console clock); null when it was not. */
  checkedAt: epochMsSchema.nullable(),
  /** Nodes whose maxmemory policy evicted the value (each also has an `evicted` transition). */
  evictedOn: z.array(nodeIdSchema),
});
export type ExpiryCause = z.infer<typeof expiryCauseSchema>;

/** A partial or conflict state shorter than this is an acquire or release in flight, not an episode. */
export const EPISODE_MIN_MS = 1_000;

/**
 * An event id as a client sends it back (`Last-Event-ID`, `?after=`): plain decimal digits, a safe
 * integer; anything else (empty, `0x10`, `1e1`, ` 5`, `-1`, garbage) is no id at all — never a
 * number that would replay everything or skip ahead.
 */
export function parseEventId(text: string | null | undefined): number | null {
  if (text == null || !/^(0|[1-9][0-9]{0,15})$/.test(text)) return null;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : null;
}

/**
 * Why an acquisition may overlap the previous holder, which never confirmed it stopped:
 * "expired-while-held" (its value ran out instead of being released: crashed, paused or too slow
 * to extend), "evicted" (a node's maxmemory policy took its majority: nobody told it),
 * "reservation-unacknowledged" (force-released with a tombstone that ran out by its TTL: the
 * holder's library never deleted it, so its routine may still be running, e.g. a long step after
 * its signal aborted), "reservation-lifted" (an operator lifted that tombstone before the holder
 * acknowledged).
 */
export const overlapReasonSchema = z.enum([
  "expired-while-held",
  "evicted",
  "reservation-unacknowledged",
  "reservation-lifted",
]);
export type OverlapReason = z.infer<typeof overlapReasonSchema>;

export const possibleOverlapSchema = z.object({
  reason: overlapReasonSchema,
  /** The previous holder's value; after a reservation, its tombstone (`rlx:<that holder's token>:…`). */
  previousValue: z.string(),
  /** The previous holder's owner, when the console knew it. */
  previousOwner: ownerInfoSchema.nullable(),
  /** When the previous holder's claim ended unconfirmed: its expiry, its eviction, the reservation's end or lift. */
  since: epochMsSchema,
  /** Who force-released the previous holder (reservation-*); null otherwise. */
  by: z.string().nullable(),
});
export type PossibleOverlap = z.infer<typeof possibleOverlapSchema>;

export const transitionSchema = z.object({
  /**
   * The SSE event id: increasing, also across restarts — a process numbers from its start time in
   * ms × 1000 (a restarted console's first id is above any id of the one before, below 10^6
   * transitions a second), and transitions restored from the state store keep theirs.
   */
  id: z.number().int(),
  /** When the console saw it (console clock, epoch ms). */
  at: epochMsSchema,
  kind: transitionKindSchema,
  /**
   * The lock's resource name ("" for a gap): the key's UTF-8 text — lossy (U+FFFD) for a key whose
   * bytes are not valid UTF-8, which then has `resourceBase64`.
   */
  resource: z.string(),
  /** The key's exact bytes, base64, when they are not valid UTF-8; null otherwise. */
  resourceBase64: z.string().nullable().default(null),
  /** The holder's value (evicted: the value the node lost); null when none. */
  value: z.string().nullable(),
  owner: ownerInfoSchema.nullable(),
  /** Ended holds: how long the value was held, in ms (from its owner's acquiredAt when known). */
  heldMs: z.number().nullable(),
  /** The most contenders seen waiting during the hold (acquired: waiting at that moment). */
  waiters: z.number().int().nonnegative(),
  /** evicted: the node(s) that evicted; conflict/partial: the nodes that held a value. */
  nodeIds: z.array(nodeIdSchema),
  /** force-released, releasing and what ended the tombstone: who did it (the audit's actor) and why. */
  by: z.string().nullable(),
  reason: z.string().nullable(),
  /** The audit entry of the force-release (from the tombstone, or this console's action); null when unknown. */
  auditId: z.string().nullable().default(null),
  /**
   * What happened, in one sentence, as the console knew it: e.g. "expired while held: the holder's
   * session was unresponsive (last heartbeat 12 s before)". null for kinds that need none.
   */
  summary: z.string().nullable().default(null),
  /** expired: what the console read of the holder's session; null for other kinds. */
  cause: expiryCauseSchema.nullable().default(null),
  /** partial/conflict: when the episode began; gap: when the blind spot began. */
  since: epochMsSchema.nullable(),
  /**
   * acquired: the previous holder's hold ran out (expired while held) before this one took the lock.
   * That holder never released: if it was only paused, it may still act as the holder — the two
   * holds may overlap from this acquisition until it notices.
   */
  afterExpired: z
    .object({
      value: z.string(),
      owner: ownerInfoSchema.nullable(),
      expiredAt: epochMsSchema,
    })
    .nullable(),
  /**
   * acquired: the previous holder never confirmed it stopped, so both may have acted as holders
   * (`summary` says it in words); null when the previous holder released, or acknowledged its
   * force-release. Set in every case `afterExpired` is, so a consumer reads this one field.
   */
  possibleOverlap: possibleOverlapSchema.nullable().default(null),
});
export type Transition = z.infer<typeof transitionSchema>;

/** A transition with every field not given empty (null, 0, []). */
export function makeTransition(
  fields: Pick<Transition, "id" | "kind" | "resource" | "at"> & Partial<Transition>,
): Transition {
  return {
    resourceBase64: null,
    value: null,
    owner: null,
    heldMs: null,
    waiters: 0,
    nodeIds: [],
    by: null,
    reason: null,
    auditId: null,
    summary: null,
    cause: null,
    since: null,
    afterExpired: null,
    possibleOverlap: null,
    ...fields,
  };
}

/** From when the history is whole. */
export const historyHorizonSchema = z.object({
  /** Transitions are complete from this instant (console clock) up to now, gaps aside; null: not yet. */
  completeSince: epochMsSchema.nullable(),
  /**
   * Why history starts there; "sampled": a node is polled (no keyspace events), so history is a
   * sample and never complete: `completeSince` is null, `sampledSince` says since when it samples.
   */
  basis: z.enum(["console-start", "index-listed", "retention", "store", "sampled"]),
  /** While sampled: since when transitions are recorded (as a sample); null otherwise. */
  sampledSince: epochMsSchema.nullable().default(null),
  /**
   * The nodes polled now, and about how often a pass sees each change (`everyMs`): a hold shorter
   * than that may never be seen there. Empty when every node is watched.
   */
  sampled: z
    .array(z.object({ nodeId: z.string(), everyMs: z.number().nonnegative().nullable() }))
    .default([]),
  /** The sample said in words (the lock and events pages show it); null when nothing is sampled. */
  sampleNote: z.string().nullable().default(null),
  /** True while the index is not whole (a node being listed): changes now are not all seen. */
  gapOpen: z.boolean(),
  /** Transitions kept at most (CONSOLE_HISTORY_MAX). */
  capacity: z.number().int(),
  /** Kept now. */
  retained: z.number().int(),
  /** Whether transitions are also kept in CONSOLE_STATE_URL. */
  durable: z.boolean(),
});
export type HistoryHorizon = z.infer<typeof historyHorizonSchema>;

export const DEFAULT_EVENTS_LIMIT = 200;
export const MAX_EVENTS_LIMIT = 2_000;

const kindsSchema = z
  .string()
  .max(200)
  .transform((text, context) => {
    const kinds = text.split(",").filter(Boolean);
    for (const kind of kinds) {
      if (!transitionKindSchema.safeParse(kind).success) {
        context.addIssue({ code: "custom", message: `unknown kind "${kind.slice(0, 40)}"` });
        return z.NEVER;
      }
    }
    return kinds as TransitionKind[];
  });

/** Filters of `GET /api/events` and `GET /api/events/stream`. All fields arrive as strings. */
export const eventsQuerySchema = z.object({
  /** Glob (Redis MATCH syntax) on resource names. */
  match: z.string().max(256).optional(),
  /** One resource, exactly (the lock page): a key whose bytes are valid UTF-8. */
  resource: z.string().min(1).max(MAX_RESOURCE_BYTES).optional(),
  /** One resource by its exact bytes (base64): a key that is not valid UTF-8. */
  resourceBase64: z.base64().min(1).max(MAX_RESOURCE_BASE64_LENGTH).optional(),
  /** Comma-separated kinds. */
  kind: kindsSchema.optional(),
  /** `label=value` on the holder's owner labels, e.g. `service=billing`. */
  owner: z
    .string()
    .max(256)
    .regex(/^[^=]+=.*$/, "must be label=value")
    .optional(),
  /**
   * `1`: only problems (isAlarming: expiries while held, evictions, conflicts and acquisitions that
   * may overlap their previous holder), on top of the other filters.
   */
  problems: z.enum(["1"]).optional(),
  /** Only transitions with an id greater than this (to resume): decimal digits only (see parseEventId). */
  after: z
    .string()
    .refine((text) => parseEventId(text) !== null, "must be an event id (decimal digits)")
    .transform((text) => parseEventId(text)!)
    .optional(),
  /**
   * Only transitions at or after this instant (console clock, epoch ms: decimal digits, as `after`):
   * the Events page's time range ("last 15 min").
   */
  since: z
    .string()
    .refine((text) => parseEventId(text) !== null, "must be epoch milliseconds (decimal digits)")
    .transform((text) => parseEventId(text)!)
    .optional(),
  limit: z.coerce.number().int().min(1).max(MAX_EVENTS_LIMIT).default(DEFAULT_EVENTS_LIMIT),
});
export type EventsQuery = z.infer<typeof eventsQuerySchema>;

export const eventsResponseSchema = z.object({
  serverTime: epochMsSchema,
  /** Newest first. */
  transitions: z.array(transitionSchema),
  horizon: historyHorizonSchema,
});
export type EventsResponse = z.infer<typeof eventsResponseSchema>;

/** The filters as one predicate, shared by the server (page, stream) and the browser (live rows). */
export function transitionFilter(
  query: Pick<EventsQuery, "kind" | "owner" | "resource" | "resourceBase64" | "problems"> &
    Partial<Pick<EventsQuery, "since">>,
  matchResource: (resource: string) => boolean,
): (transition: Transition) => boolean {
  const kinds = query.kind && query.kind.length > 0 ? new Set(query.kind) : null;
  const [label, wanted] = query.owner ? splitOnce(query.owner) : [null, null];
  return (transition) => {
    if (query.since !== undefined && transition.at < query.since) return false;
    if (kinds && !kinds.has(transition.kind)) return false;
    if (query.problems && !isAlarming(transition)) return false;
    if (label !== null) {
      const have =
        transition.owner?.labels[label] ??
        transition.possibleOverlap?.previousOwner?.labels[label] ??
        transition.afterExpired?.owner?.labels[label];
      if (have !== wanted) return false;
    }
    // A gap concerns every lock: a filtered feed must show it too.
    if (transition.kind === "gap") return true;
    // A name is exact only for a key whose bytes are UTF-8: two keys \xffA and \xfeA both read
    // "\ufffdA", so they are told apart, and filtered, by their bytes.
    if (query.resourceBase64 !== undefined)
      return transition.resourceBase64 === query.resourceBase64;
    if (query.resource !== undefined)
      return transition.resourceBase64 === null && transition.resource === query.resource;
    return matchResource(transition.resource);
  };
}

function splitOnce(text: string): [string, string] {
  const at = text.indexOf("=");
  return [text.slice(0, at), text.slice(at + 1)];
}

/** Transitions the UI makes stand out, and the Events page's "Problems". */
export function isAlarming(transition: Pick<Transition, "kind" | "possibleOverlap">): boolean {
  return (
    transition.kind === "expired" ||
    transition.kind === "evicted" ||
    transition.kind === "conflict" ||
    transition.possibleOverlap != null
  );
}
