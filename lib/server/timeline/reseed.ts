import "server-only";
/**
 * The holds re-read from the live index once it is whole again (coverage.ts), without emitting: in
 * slices that yield (key-walk.ts), as one walk of 100k locks would hold every request up for ~0.5 s.
 * A change to a key the walk has not reached yet is left to it: the walk reads what it holds then.
 * The timeline hears the index's changes through a queue (LiveIndex.addHandler), so changes the
 * walk already saw in the index can still be on their way: each slice notes the index's change
 * count when it read, and a change counted no later than the read of its key is not folded again.
 */
import type { Reads } from "../locks/rows/live-index";
import { KeyWalk } from "../locks/rows/key-walk";
import { majorityHold, type Hold } from "./hold-fold";

/** What the re-read needs of the live index. */
export interface HoldSource {
  readonly quorumSize: number;
  /** The resources the index holds, in byte order from the first ≥ `low`. */
  keysFrom(low: string): Iterable<string>;
  /** What each node holds under `key`. */
  reads(key: string): Reads;
  /** How many changes the index has applied (IndexChange.seq of the latest). */
  readonly changeCount?: number;
}

/** From `fromKey` on (up to the next one), the walk read the index after `seq` changes. */
interface ReadMark {
  readonly fromKey: string;
  readonly seq: number;
}

export class Reseed {
  readonly #walk = new KeyWalk();
  /** One per slice during which the index changed, in key order (see the file comment). */
  #marks: ReadMark[] = [];

  /** Empties `holds`, then fills it with each key's majority hold at `nowMs`, slice by slice. */
  start(index: HoldSource, holds: Map<string, Hold>, nowMs: number): void {
    holds.clear();
    // Keys before the first one visited were passed (absent) at the start.
    this.#marks = [{ fromKey: "", seq: index.changeCount ?? 0 }];
    this.#walk.start(
      (low) => index.keysFrom(low),
      (key) => {
        const seq = index.changeCount ?? 0;
        if (this.#marks.at(-1)?.seq !== seq) this.#marks.push({ fromKey: key, seq });
        const hold = majorityHold(index.reads(key), index.quorumSize, nowMs);
        if (hold) holds.set(key, hold);
      },
    );
  }

  /** True when no re-read is under way or it has read `key`: a change to it folds now. */
  reached(key: string): boolean {
    return this.#walk.reached(key);
  }

  /**
   * True when change `seq` of `key` was already in the index when the walk read the key (or passed
   * where it would be): the hold re-read holds it, folding it again would replay the past.
   */
  saw(key: string, seq: number): boolean {
    const marks = this.#marks;
    const last = marks.at(-1);
    if (!last || !this.#walk.reached(key)) return false;
    if (!this.#walk.active && seq > last.seq) {
      // Every change still to come is newer than every read: the marks have served.
      this.#marks = [];
      return false;
    }
    let low = 0;
    let high = marks.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (marks[middle]!.fromKey <= key) low = middle;
      else high = middle - 1;
    }
    return seq <= marks[low]!.seq;
  }
}
