/**
 * `GET /api/contention` (who blocks whom: the wait-for graph, its chains and deadlock cycles) and
 * `GET /api/contention/waits` (wait times, top blockers, wait-time objectives). Plain zod: the
 * browser bundles this file.
 */
import { z } from "zod";
import { epochMsSchema } from "./common";

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
