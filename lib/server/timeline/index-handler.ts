/**
 * The timeline on the live index (LiveIndex.addHandler, registered by the composition root): every
 * change, gap, brief hold and tick in order, each dated when the index saw it, so a timeline that
 * lags still dates its transitions right. The view it is built on says the index whole or not as
 * of the change being delivered, not as of now: what the timeline folds and what it leaves to a
 * gap are what they were when the change happened; the rest is read from the index (its re-read
 * then skips the changes it already saw: reseed.ts). Its queue is "ordered": an overflow reaches
 * it as a gap, and the timeline re-reads its holds from the index as after a relist (coverage.ts).
 */
import type { IndexHandler, LiveIndex } from "../locks/rows/live-index";
import type { IndexView, Timeline } from "./timeline";

export interface TimelineOnIndex {
  /** What the timeline is built on. */
  readonly view: IndexView;
  /** The handler to register for `timeline` (built on `view`). */
  handler(timeline: Timeline): IndexHandler;
}

export function timelineOnIndex(index: LiveIndex): TimelineOnIndex {
  let complete = false;
  const view: IndexView = {
    get complete() {
      return complete;
    },
    get nodeIds() {
      return index.nodeIds;
    },
    get quorumSize() {
      return index.quorumSize;
    },
    get changeCount() {
      return index.changeCount;
    },
    // Every lock key, a semaphore's permits included: its holds are per key.
    keysFrom: (low) => index.lockKeysFrom(low),
    reads: (key) => index.reads(key),
    sampled: () => index.sampled(),
  };
  return {
    view,
    handler: (timeline) => ({
      change: (change) => {
        complete = change.complete;
        timeline.observe(
          change.key,
          change.reads,
          change.state,
          change.nodeIndex,
          change.cause,
          change.atMs,
          change.seq,
        );
      },
      gap: (sinceMs) => timeline.gap(sinceMs),
      brief: (key, nodeIndex, holds, atMs) => timeline.brief(key, nodeIndex, holds, atMs),
      tick: (nowMs, wasComplete) => {
        complete = wasComplete;
        timeline.tick(nowMs);
      },
    }),
  };
}
