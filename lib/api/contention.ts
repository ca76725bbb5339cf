/**
 * `GET /api/contention` (who blocks whom: the wait-for graph, its chains and deadlock cycles) and
 * `GET /api/contention/waits` (wait times, top blockers, wait-time objectives). Plain zod: the
 * browser bundles this file.
 */
import { z } from "zod";
import { epochMsSchema, resourceNameSchema } from "./common";

/** Chains listed at most, longest first (`chainsTotal` counts them all). */
export const MAX_CHAINS_LISTED = 50;
/** Cycles listed at most. */
export const MAX_CYCLES_LISTED = 50;

/**
 * A participant of the graph: a holder session (its 32-hex id), or, without a session, a waiter
 * entry (`waiter:<id>`) or an unidentified holder of a lock (`holder:<resource>`).
 */
export const contentionParticipantSchema = z.object({
  id: z.string(),
  kind: z.enum(["session", "waiter-without-session", "holder-without-session"]),
  /** Owner labels (service, host, pid…) from its lock value or waiter entry. */
  labels: z.record(z.string(), z.string()),
  /** Locks it holds that someone waits for, with the value an operator's revoke must name. */
  holds: z.array(z.object({ resource: z.string(), value: z.string() })),
  /** Locks it waits for, and since when (the contender's clock, epoch ms). */
  waitsFor: z.array(z.object({ resource: z.string(), since: epochMsSchema })),
});
export type ContentionParticipant = z.infer<typeof contentionParticipantSchema>;

/**
 * A wait chain, from the last waiter to the root blocker: `sessions[i]` waits for `resources[i]`,
 * which `sessions[i + 1]` holds. The last one waits for nobody (or `endsInCycle`).
 */
export const contentionChainSchema = z.object({
  sessions: z.array(z.string()),
  resources: z.array(z.string()),
  /** The chain runs into a deadlock cycle: its last session is a member of one. */
  endsInCycle: z.boolean(),
  /** The longest wait along the chain so far, ms. */
  longestWaitMs: z.number().nonnegative(),
});
export type ContentionChain = z.infer<typeof contentionChainSchema>;

/** Live waits listed at most in `waitList` (longest first; `waits` counts them all). */
export const MAX_WAITS_LISTED = 200;

/**
 * One live wait, whoever waits and whatever it waits behind (issue 41 item 5): the chains follow
 * one wait per participant and none on a lock nobody holds, so this list is where every wait shows.
 */
export const contentionWaitSchema = z.object({
  /** The waiter: a session id, or `waiter:<entry id>` without a session. */
  waiter: z.string(),
  /** The waiter's owner labels (service, host, pid…). */
  labels: z.record(z.string(), z.string()),
  resource: z.string(),
  /** When it started waiting (the contender's clock, epoch ms). */
  since: epochMsSchema,
  /** Who holds the lock now; null when no node holds it (between two holders). */
  holder: z.object({ id: z.string(), labels: z.record(z.string(), z.string()) }).nullable(),
});
export type ContentionWait = z.infer<typeof contentionWaitSchema>;

/** A deadlock cycle: `sessions[i]` waits for `resources[i]`, held by `sessions[(i + 1) % n]`. */
export const contentionCycleSchema = z.object({
  resources: z.array(z.string()),
  sessions: z.array(z.string()),
  /** The episode (it dissolves and re-forms every retry window; one id while it keeps coming back). */
  episodeId: z.string(),
  /** When this episode was first seen (console clock, epoch ms). */
  firstSeenAt: epochMsSchema,
});
export type ContentionCycle = z.infer<typeof contentionCycleSchema>;

export const contentionResponseSchema = z.object({
  serverTime: epochMsSchema,
  chains: z.array(contentionChainSchema),
  chainsTotal: z.number().int().nonnegative(),
  cycles: z.array(contentionCycleSchema),
  /** Every participant named by a chain or a cycle, by id. */
  participants: z.record(z.string(), contentionParticipantSchema),
  /** Live waits the graph was built from. */
  waits: z.number().int().nonnegative(),
  /** Every live wait, longest first, at most MAX_WAITS_LISTED. */
  waitList: z.array(contentionWaitSchema).default([]),
  /** Cycle episodes seen since the console started. */
  cycleEpisodesTotal: z.number().int().nonnegative(),
  /**
   * The longest a cycle can exist before the graph shows it, ms: keyspace events plus one
   * detection tick, or the slowest node's polling interval plus one tick.
   */
  detectionBoundMs: z.number().int().nonnegative(),
  /** The index is incomplete (a node being listed, or keys left out): waits may be missing. */
  partial: z.boolean(),
});
export type ContentionResponse = z.infer<typeof contentionResponseSchema>;

/** Services charted separately at most (by number of waits); the rest add up under "other". */
export const MAX_SERVICES_CHARTED = 8;
/** Locks listed at most in `locks` (by number of waits). */
export const MAX_WAIT_LOCKS_LISTED = 20;
/** Top blockers listed at most. */
export const MAX_TOP_BLOCKERS = 10;

/** p50/p99 of completed waits, ms (null when none). */
const waitFiguresSchema = z.object({
  count: z.number().int().nonnegative(),
  p50Ms: z.number().nullable(),
  p99Ms: z.number().nullable(),
});

export const waitSeriesPointSchema = waitFiguresSchema.extend({
  /** The minute's start (console clock, epoch ms). */
  minute: epochMsSchema,
  /** The contender's owner `service` label. */
  service: z.string(),
});
export type WaitSeriesPoint = z.infer<typeof waitSeriesPointSchema>;

export const topBlockerSchema = z.object({
  /** A session id, `holder:<resource>` (a holder without a session) or `other` (past the bound). */
  id: z.string(),
  labels: z.record(z.string(), z.string()),
  locks: z.array(z.string()),
  /** Wait it made others spend in the last hour, summed over waiters, ms. */
  waitCausedMs: z.number().nonnegative(),
});
export type TopBlocker = z.infer<typeof topBlockerSchema>;

export const waitObjectiveStatusSchema = z.object({
  name: z.string(),
  match: z.string().optional(),
  service: z.string().optional(),
  thresholdMs: z.number(),
  target: z.number(),
  windowDays: z.number(),
  /** Covered waits that ended in the last hour, and how many of them exceeded thresholdMs. */
  waits1h: z.number().int().nonnegative(),
  bad1h: z.number().int().nonnegative(),
  /** (bad share) / (1 − target) over each window; null without a covered wait. */
  burnRate: z.object({ "1h": z.number().nullable(), "6h": z.number().nullable() }),
});
export type WaitObjectiveStatus = z.infer<typeof waitObjectiveStatusSchema>;

export const waitsResponseSchema = z.object({
  serverTime: epochMsSchema,
  /** What the figures cover: completed waits that ended in the last hour (acquired, gave up, session gone). */
  windowMs: z.number().int(),
  /** Per minute and service (MAX_SERVICES_CHARTED, then "other"); of `resource` only when asked. */
  series: z.array(waitSeriesPointSchema),
  /** The lock the series is of; null: every lock. */
  resource: z.string().nullable(),
  services: z.array(waitFiguresSchema.extend({ service: z.string() })),
  locks: z.array(waitFiguresSchema.extend({ resource: z.string(), maxMs: z.number() })),
  topBlockers: z.array(topBlockerSchema),
  objectives: z.array(waitObjectiveStatusSchema),
});
export type WaitsResponse = z.infer<typeof waitsResponseSchema>;

/** `GET /api/contention/waits?resource=`: the series of one lock only (the tables stay whole). */
export const waitsQuerySchema = z.object({ resource: resourceNameSchema.optional() });
export type WaitsQuery = z.infer<typeof waitsQuerySchema>;
