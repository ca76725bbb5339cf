/**
 * Brief holds: values that came and went on a node between two reads of a key (a lock taken and
 * released within the ~10 ms before the console reads it). Their values and owners were never
 * read, so they are counted, not shown. Tested as tables in test/server/timeline-rules.test.ts.
 */
import { quorumLargest } from "../locks/rows/quorum";

/** Brief holds reported by the nodes are gathered this long: their reads land at slightly different times. */
const BRIEF_WINDOW_MS = 500;

/**
 * Brief holds per lock, gathered for BRIEF_WINDOW_MS from the first report, since each node reads
 * the key at a slightly different time. Once the window closes, the lock counts as taken as many
 * times as a majority of nodes saw a value come and go (the quorum-th largest count).
 */
export class BriefHolds {
  readonly #windows = new Map<string, { sinceMs: number; holds: number[] }>();

  /** Node `nodeIndex` (of `nodeCount`) saw `holds` values come and go under `key`. */
  add(key: string, nodeIndex: number, holds: number, nodeCount: number, nowMs: number): void {
    let window = this.#windows.get(key);
    if (!window) {
      window = { sinceMs: nowMs, holds: new Array<number>(nodeCount).fill(0) };
      this.#windows.set(key, window);
    }
    window.holds[nodeIndex]! += holds;
  }

  /** The locks whose window closed by `nowMs`, with the changes of hands each counts (0: left out). */
  close(nowMs: number, quorumSize: number): Array<[key: string, holds: number]> {
    const closed: Array<[string, number]> = [];
    for (const [key, window] of this.#windows) {
      if (nowMs - window.sinceMs < BRIEF_WINDOW_MS) continue;
      this.#windows.delete(key);
      const holds = quorumLargest(window.holds, quorumSize) ?? 0;
      if (holds > 0) closed.push([key, holds]);
    }
    return closed;
  }

  /** Forgets every window: the index is not whole, so the counts are not complete. */
  clear(): void {
    this.#windows.clear();
  }
}
