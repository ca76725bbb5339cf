/**
 * A polled node's passes (a node without keyspace notifications): each pass is a listing paced by
 * what a key costs that master (poll-pace.ts, measured around the pass), at most one per
 * POLL_MIN_INTERVAL_MS; the keys whose expiry is due are read again before the console says they
 * ended (an extension made since the last pass is unseen without notifications); and the node
 * card's figures: the pace, and how late a change shows.
 */
import type { NodeIndex } from "@/lib/api";
import type { Budget } from "../io/budget";
import { READ_CHUNK_KEYS } from "../store/change-queue";
import type { Clock } from "../io/clock";
import type { NodeConnections } from "../io/connections";
import type { CompletedListing } from "./lister";
import { passCommandsUsec, PollPace } from "./poll-pace";

/** A polling pass starts at most this often, however small the keyspace. */
const POLL_MIN_INTERVAL_MS = 1_000;

export interface PollPassesOptions {
  /** The node's command connection: INFO commandstats around each pass. */
  readonly commands: Pick<NodeConnections["commands"], "info">;
  /** The node's budget (keys per second): the pace never goes above it. */
  readonly budgetPerS: number;
  readonly clock: Clock;
  /** Aborts when the watch closes: waits and confirming reads stop. */
  readonly signal: AbortSignal;
  /** Reads keys already paid for (key-reader.ts). */
  readonly read: (keys: readonly Buffer[]) => Promise<unknown>;
}

export class PollPasses {
  readonly #options: PollPassesOptions;
  readonly #pace: PollPace;
  /** Keys the wheel named for a confirming read whose read has not ended. */
  readonly #confirming = new Set<string>();

  constructor(options: PollPassesOptions) {
    this.#options = options;
    this.#pace = new PollPace(options.budgetPerS);
  }

  /** What a pass's SCAN and reads draw from: the measured pace. */
  get budget(): Budget {
    return this.#pace.budget;
  }

  /** Runs one pass (`list`), measuring the master's CPU it took to set the next pass's pace. */
  async measured(list: () => Promise<CompletedListing>): Promise<CompletedListing> {
    const usecBefore = await this.#passUsec();
    const listing = await list();
    if (usecBefore !== null) {
      const usecAfter = await this.#passUsec();
      const { keysVisited, startedAtMs, endedAtMs } = listing;
      if (usecAfter !== null)
        this.#pace.measured(keysVisited, usecAfter - usecBefore, endedAtMs - startedAtMs);
    }
    return listing;
  }

  /** Waits until the next pass may start (at most one per POLL_MIN_INTERVAL_MS). */
  async waitForNext({ startedAtMs, endedAtMs }: CompletedListing): Promise<void> {
    const waitMs = POLL_MIN_INTERVAL_MS - (endedAtMs - startedAtMs);
    if (waitMs > 0) await this.#options.clock.sleep(waitMs, this.#options.signal).catch(() => {});
  }

  /** The pace, and how late a change shows: one pass over the node's keys, a second at least. */
  status(last: CompletedListing | null, patternCount: number): NonNullable<NodeIndex["polling"]> {
    const pace = this.#pace.report();
    const keysToVisit = (last?.keysTotal ?? 0) * patternCount;
    const passMs = Math.max(
      POLL_MIN_INTERVAL_MS,
      (keysToVisit / pace.perS) * 1_000,
      last ? last.endedAtMs - last.startedAtMs : 0,
    );
    return { ...pace, changesWithinMs: Math.round(passMs) };
  }

  /** Reads the keys whose expiry is due on a polled node, paid from its polling pace. */
  async confirmExpiries(names: readonly string[]): Promise<void> {
    const keys = names.filter((name) => !this.#confirming.has(name));
    for (const name of keys) this.#confirming.add(name);
    try {
      for (let start = 0; start < keys.length; start += READ_CHUNK_KEYS) {
        const chunk = keys.slice(start, start + READ_CHUNK_KEYS);
        await this.#pace.budget.take(chunk.length, this.#options.signal);
        await this.#options.read(chunk.map((name) => Buffer.from(name, "latin1")));
      }
    } catch {
      // Unread (node gone, watch closing): the next pass reads them, or forgets them if gone.
    } finally {
      for (const name of keys) this.#confirming.delete(name);
    }
  }

  /** The master's CPU spent on pass commands so far (poll-pace.ts); null when INFO fails. */
  async #passUsec(): Promise<number | null> {
    try {
      return passCommandsUsec(await this.#options.commands.info("commandstats"));
    } catch {
      return null;
    }
  }
}
