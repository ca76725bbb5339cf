/**
 * The listing side of a node's watch (the informer's list): a paced SCAN of every lock pattern, its
 * keys read in chunks, then a sweep of what it did not see. Every SCAN call draws its COUNT from the
 * node's budget, so a listing never visits more keys per second than the budget allows, however
 * large the keyspace. The node's run_id is read each time: a changed one means it restarted or failed
 * over, and what the index held of it may be gone.
 */
import type { ListingProgress, ListingReason } from "@/lib/api";
import { RESERVED_PREFIX } from "@redlock-console/redlock";
import type { Budget } from "../io/budget";
import { READ_CHUNK_KEYS } from "../store/change-queue";
import type { Clock } from "../io/clock";
import type { ListerClient } from "../io/connections";
import type { NodeStore } from "../store/node-store";
import { isGapReason, type GapReason } from "./phase";

/** Keys per SCAN call at most: each call is bounded work on the node. */
const SCAN_COUNT_MAX = 1_000;
/** Commands a listing sends before its SCAN: CONFIG GET, INFO, DBSIZE. */
const LISTING_FIXED_COMMANDS = 3;

export interface ListerOptions {
  readonly client: ListerClient;
  readonly budget: Budget;
  /**
   * The budget a listing's SCAN draws from, by its reason: a polled node's passes have a pace of
   * their own (poll-pace.ts). @default the node's budget
   */
  readonly scanBudget?: (reason: ListingReason) => Budget;
  readonly patterns: readonly string[];
  readonly clock: Clock;
  /** Aborts when the watch closes. */
  readonly signal: AbortSignal;
  readonly store: Pick<NodeStore, "beginGeneration" | "endGeneration" | "unseen" | "keys">;
  /** Reads keys the SCAN returned (paid for by the SCAN); resolves to the locks found. */
  readonly read: (keys: readonly Buffer[]) => Promise<number>;
  /** The node no longer holds `name` (the listing did not see it, or the node restarted). */
  readonly forget: (name: string) => void;
  /**
   * Before the SCAN: the node's notifications checked and the subscriber subscribed, so every
   * change from then on arrives as a notification. Resolves to the listing's reason.
   */
  readonly prepare: (reason: ListingReason) => Promise<ListingReason>;
  /** The node restarted or failed over since the last listing: what it held may be gone. */
  readonly onRestart: () => void;
  /** A listing after a gap begins. */
  readonly onRelist: (reason: GapReason) => void;
}

/** A listing that ran to its end. */
export interface CompletedListing {
  readonly startedAtMs: number;
  readonly endedAtMs: number;
  /** Keys it read that held no lock of a recognised format (skipped: not listed, not kept). */
  readonly skippedKeys: number;
  /** Keys its SCAN visited (SCAN COUNT per call: an estimate). */
  readonly keysVisited: number;
  /** Keys in the node's db when it began (DBSIZE). */
  readonly keysTotal: number;
}

export class Lister {
  readonly #options: ListerOptions;
  #runId: string | null = null;
  #progress: ListingProgress | null = null;
  #last: CompletedListing | null = null;

  constructor(options: ListerOptions) {
    this.#options = options;
  }

  /** The listing under way, updated as it goes; null when none runs. */
  get progress(): ListingProgress | null {
    return this.#progress;
  }

  /** The last listing that ran to its end; null before the first. */
  get last(): CompletedListing | null {
    return this.#last;
  }

  /** One paced listing: SCAN every pattern, read what it returns, then forget what it did not see. */
  async list(requested: ListingReason): Promise<CompletedListing> {
    const { budget, signal, prepare, store, forget, onRestart, onRelist } = this.#options;
    await budget.take(LISTING_FIXED_COMMANDS, signal);
    const prepared = await prepare(requested);
    const { restarted, keysTotal } = await this.#identify();
    if (restarted) {
      // What it held may be gone. Forget it now, relist from nothing.
      onRestart();
      for (const name of [...store.keys()]) forget(name);
    }
    const reason = restarted ? "restart" : prepared;
    if (isGapReason(reason)) onRelist(reason);
    const { startedAtMs, skippedKeys, keysVisited } = await this.#scanAll(reason, keysTotal);
    const endedAtMs = this.#options.clock.now();
    return (this.#last = { startedAtMs, endedAtMs, skippedKeys, keysVisited, keysTotal });
  }

  /** INFO server and DBSIZE: whether the node restarted since the last listing, and its size. */
  async #identify(): Promise<{ restarted: boolean; keysTotal: number }> {
    const { client } = this.#options;
    const [info, keysTotal] = await Promise.all([client.info("server"), client.dbsize()]);
    const runId = /run_id:(\w+)/.exec(info)?.[1] ?? null;
    const restarted = this.#runId !== null && runId !== this.#runId;
    this.#runId = runId;
    return { restarted, keysTotal };
  }

  /** SCANs every pattern and reads what it returns; then forgets what it did not see. */
  async #scanAll(
    reason: ListingReason,
    keysTotal: number,
  ): Promise<{ startedAtMs: number; skippedKeys: number; keysVisited: number }> {
    const { clock, patterns, store, forget } = this.#options;
    store.beginGeneration();
    const startedAtMs = clock.now();
    const progress: ListingProgress = {
      reason,
      startedAt: startedAtMs,
      keysVisited: 0,
      keysTotal,
      locksFound: 0,
      keysSkipped: 0,
      fraction: keysTotal > 0 ? 0 : null,
    };
    this.#progress = progress;
    try {
      for (const pattern of patterns) await this.#scan(pattern, progress);
      // What the listing did not see, and no notification touched since it began, is gone.
      for (const name of store.unseen()) forget(name);
      store.endGeneration();
    } finally {
      this.#progress = null;
    }
    return { startedAtMs, skippedKeys: progress.keysSkipped, keysVisited: progress.keysVisited };
  }

  async #scan(pattern: string, progress: ListingProgress): Promise<void> {
    const { client, signal, patterns, scanBudget } = this.#options;
    const budget = scanBudget?.(progress.reason) ?? this.#options.budget;
    const count = Math.max(10, Math.min(SCAN_COUNT_MAX, budget.burst));
    const keysToVisit = (progress.keysTotal ?? 0) * patterns.length;
    let cursor = "0";
    // One batch's reads run beside the next SCAN (both on the command connection, in order): a
    // listing waited for each read before it scanned on, a round trip per call for nothing.
    let reading: Promise<void> = Promise.resolve();
    do {
      await budget.take(count, signal);
      const [next, batch] = await client.scanBuffer(cursor, "MATCH", pattern, "COUNT", count);
      cursor = next.toString();
      progress.keysVisited += count;
      if (keysToVisit > 0) progress.fraction = Math.min(0.99, progress.keysVisited / keysToVisit);
      const keys = batch.filter((key) => !key.toString("latin1").startsWith(RESERVED_PREFIX));
      await reading;
      reading = this.#readAll(keys, progress);
      reading.catch(() => {}); // awaited at the next turn or after the loop; not unhandled meanwhile
    } while (cursor !== "0");
    await reading;
  }

  async #readAll(keys: readonly Buffer[], progress: ListingProgress): Promise<void> {
    for (let start = 0; start < keys.length; start += READ_CHUNK_KEYS) {
      const chunk = keys.slice(start, start + READ_CHUNK_KEYS);
      const found = await this.#options.read(chunk);
      progress.locksFound += found;
      progress.keysSkipped += chunk.length - found;
    }
  }
}
