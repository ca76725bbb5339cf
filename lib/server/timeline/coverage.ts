/**
 * The stretches of time the timeline covers. Transitions are folded only while the live index is
 * whole (every reachable node listed and followed): a stretch when it is not is a gap, recorded as
 * one once it closes, never shown as quiet. The horizon says since when history is complete: from
 * the first whole index, from the durable store's oldest transition, or from the oldest one still
 * retained once the ring is full. Tested as tables in test/server/timeline-rules.test.ts.
 */
import type { HistoryHorizon } from "@/lib/api";
import type { History } from "./history";
import { sampledWords } from "./wording";

/** What a check of the index's completeness asks of the timeline. */
export type CoverageStep =
  /** Nothing changed. */
  | { readonly kind: "unchanged" }
  /** The index stopped being whole: a gap opens, nothing is folded until it closes. */
  | { readonly kind: "gap-opened" }
  /**
   * The index became whole: the holds are re-read from it without emitting anything, since what
   * happened before was not seen; `gapSinceMs`, when set, is the gap that just closed (null the
   * first time: history begins here).
   */
  | { readonly kind: "whole"; readonly gapSinceMs: number | null };

// Checked on every change and every tick: the common answers are not allocated each time.
const UNCHANGED: CoverageStep = { kind: "unchanged" };
const GAP_OPENED: CoverageStep = { kind: "gap-opened" };

export class Coverage {
  #complete = false;
  /** Since when changes may have been missed; null when none is open or owed. */
  #gapSinceMs: number | null = null;
  #completeSinceMs: number | null = null;
  #basis: HistoryHorizon["basis"] = "index-listed";

  /** Whether changes are being folded: the index was whole at the last check and no gap came since. */
  get complete(): boolean {
    return this.#complete;
  }

  /**
   * Follows the index's completeness (`indexComplete`) at `nowMs`. `recordedAny`: whether the
   * timeline has emitted a transition in this process (as for gap()).
   */
  check(indexComplete: boolean, nowMs: number, recordedAny = true): CoverageStep {
    if (indexComplete === this.#complete) return UNCHANGED;
    this.#complete = indexComplete;
    if (!indexComplete) {
      if (!recordedAny && this.#basis === "index-listed" && this.#gapSinceMs === null) {
        // Nothing recorded yet: history begins again once the index is whole, rather than with a
        // gap, as when gap() hears of the relist first. At start the index reads whole before any
        // node is connected (every node unreachable); the nodes' first listings then make it not
        // whole, and a tick could see that before the listing's gap() arrived: a "gap" row before
        // the first transition, on a loaded machine.
        this.#completeSinceMs = null;
        return GAP_OPENED;
      }
      this.#gapSinceMs ??= nowMs;
      return GAP_OPENED;
    }
    let gapSinceMs: number | null = null;
    if (this.#completeSinceMs === null) {
      this.#completeSinceMs = nowMs;
      this.#basis = "index-listed";
    } else {
      // A relist, or (restored from a store) the time no console was watching.
      gapSinceMs = this.#gapSinceMs;
    }
    this.#gapSinceMs = null;
    return { kind: "whole", gapSinceMs };
  }

  /**
   * A node is relisted after a gap: its changes since `sinceMs` are unknown until the listing ends.
   * `recordedAny`: whether the timeline has emitted a transition in this process.
   */
  gap(sinceMs: number, recordedAny: boolean): void {
    if (this.#complete && !recordedAny && this.#basis === "index-listed") {
      // Nothing recorded yet (a node that connected after the others is listed at start): history
      // simply begins once the index is whole, rather than with a gap.
      this.#complete = false;
      this.#completeSinceMs = null;
      return;
    }
    if (this.#complete) {
      this.#complete = false;
      this.#gapSinceMs = sinceMs;
    } else if (this.#gapSinceMs !== null && sinceMs < this.#gapSinceMs) {
      this.#gapSinceMs = sinceMs;
    }
  }

  /**
   * History was restored from a durable store: complete since its oldest transition (null: the
   * store held none), with a gap from `awaySinceMs`, when no console was watching.
   */
  restored(oldestAtMs: number | null, awaySinceMs: number): void {
    if (oldestAtMs !== null) {
      this.#completeSinceMs = oldestAtMs;
      this.#basis = "store";
    }
    this.#gapSinceMs = awaySinceMs;
  }

  /**
   * Since when `history` is complete, and why; once the ring is full, its oldest entry bounds it.
   * With a node `sampled` (polled), it is never complete: a sample since then, and how coarse.
   */
  horizon(
    history: Pick<History, "oldest" | "size" | "capacity"> & Partial<Pick<History, "full">>,
    durable: boolean,
    sampled: HistoryHorizon["sampled"] = [],
  ): HistoryHorizon {
    const oldest = history.oldest;
    const full = history.full ?? history.size >= history.capacity;
    const retentionSince = full && oldest ? oldest.at : null;
    const since =
      this.#completeSinceMs === null
        ? null
        : retentionSince !== null && retentionSince > this.#completeSinceMs
          ? retentionSince
          : this.#completeSinceMs;
    const sampling = sampled.length > 0;
    return {
      completeSince: sampling ? null : since,
      basis: sampling
        ? "sampled"
        : since !== null && since === retentionSince
          ? "retention"
          : this.#basis,
      sampledSince: sampling ? since : null,
      sampled,
      sampleNote: sampledWords(sampled),
      gapOpen: !this.#complete,
      capacity: history.capacity,
      retained: history.size,
      durable,
    };
  }
}
