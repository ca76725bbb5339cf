import "server-only";
/**
 * When a node is listed (the reflector's loop): one listing at a time, for the reason last asked,
 * while the node answers. A relist after a gap is never replaced by a resync or a poll, and a failed
 * listing is retried after a backoff.
 */
import type { ListingReason } from "@/lib/api";
import { logger, redactText } from "../../../logger";
import type { Clock } from "../io/clock";
import { isGapReason } from "./phase";

/** After a failed listing (node errors mid-way), wait this long before relisting. */
const RELIST_BACKOFF_MS = 1_000;

export interface RelistLoopOptions {
  readonly clock: Clock;
  /** Aborts when the watch closes: the loop ends. */
  readonly signal: AbortSignal;
  /** The node, for logs. */
  readonly address: string;
  /** Whether the node answers: a listing waits for it. */
  readonly reachable: () => boolean;
  /** Whether a periodic resync is worth running now (watched, and no listing under way). */
  readonly resyncWanted: () => boolean;
  /** Runs one listing. */
  readonly list: (reason: ListingReason) => Promise<void>;
  /** The reason a failed listing is retried for, unless another was asked meanwhile. */
  readonly retryReason: () => ListingReason;
}

export class RelistLoop {
  readonly #options: RelistLoopOptions;
  /** The listing asked for next. */
  #wanted: ListingReason | null = null;
  #wake: () => void = () => {};

  constructor(options: RelistLoopOptions) {
    this.#options = options;
  }

  /** Asks for a listing. */
  request(reason: ListingReason): void {
    if (this.#options.signal.aborted) return;
    if (this.#wanted && isGapReason(this.#wanted) && !isGapReason(reason)) return;
    if (reason === "resync" && !this.#options.resyncWanted()) return;
    this.#wanted = reason;
    this.#wake();
  }

  /** Something a waiting listing depends on changed (the node answers again, or the watch closed). */
  wake(): void {
    this.#wake();
  }

  /** Lists whenever asked, until the signal aborts. */
  async run(): Promise<void> {
    const { signal, reachable, list } = this.#options;
    while (!signal.aborted) {
      const reason = this.#wanted;
      if (reason === null || !reachable()) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        continue;
      }
      this.#wanted = null;
      try {
        await list(reason);
      } catch (error) {
        if (signal.aborted) return;
        const { address, retryReason, clock } = this.#options;
        logger.warn(
          { node: address, reason, error: redactText(String(error)) },
          "listing failed; retrying",
        );
        this.#wanted ??= retryReason();
        await clock.sleep(RELIST_BACKOFF_MS, signal).catch(() => {});
      }
    }
  }
}
