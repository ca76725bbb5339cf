import "server-only";
/**
 * The holds re-read from the live index once it is whole again (coverage.ts), without emitting: in
 * slices that yield (key-walk.ts), as one walk of 100k locks would hold every request up for ~0.5 s.
 * A change to a key the walk has not reached yet is left to it: the walk reads what it holds then.
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
}

export class Reseed {
  readonly #walk = new KeyWalk();

  /** Empties `holds`, then fills it with each key's majority hold at `nowMs`, slice by slice. */
  start(index: HoldSource, holds: Map<string, Hold>, nowMs: number): void {
    holds.clear();
    this.#walk.start(
      (low) => index.keysFrom(low),
      (key) => {
        const hold = majorityHold(index.reads(key), index.quorumSize, nowMs);
        if (hold) holds.set(key, hold);
      },
    );
  }

  /** True when no re-read is under way or it has read `key`: a change to it folds now. */
  reached(key: string): boolean {
    return this.#walk.reached(key);
  }
}
