/**
 * A walk of every key of the index, in byte order, in slices of SLICE_MS that yield to the event
 * loop between them: at 100k locks × 5 nodes a walk in one go holds every request up for ~0.5 s.
 * The first slice runs at once (a small index is walked before start() returns). `reached(key)`
 * tells whether the walk has passed a key, so a change to a key not reached yet can be left to it.
 * `visit` must not change the keys walked (collect, then change, as the live index's re-fold does).
 */
const SLICE_MS = 8;

export class KeyWalk {
  /** Bumped by every start(): an older walk stops at its next slice. */
  #run = 0;
  #active = false;
  /** The last key visited; undefined before the first. */
  #after: string | undefined;

  /** Whether a walk is under way. */
  get active(): boolean {
    return this.#active;
  }

  /**
   * Walks `keysFrom("")` onward, calling `visit` for each key, then `onEnd` (with the error, when
   * `visit` threw: the walk stops there). Restarts a walk under way, whose `onEnd` is never called.
   * Without `onEnd`, an error is thrown (from a later slice: uncaught).
   */
  start(
    keysFrom: (low: string) => Iterable<string>,
    visit: (key: string) => void,
    onEnd?: (error?: unknown) => void,
  ): void {
    const run = ++this.#run;
    this.#active = true;
    this.#after = undefined;
    const slice = () => {
      if (run !== this.#run) return;
      const startedAt = performance.now();
      try {
        for (const key of keysFrom(this.#after ?? "")) {
          if (key === this.#after) continue;
          visit(key);
          this.#after = key;
          if (performance.now() - startedAt > SLICE_MS) return void setImmediate(slice);
        }
      } catch (error) {
        this.#active = false;
        if (!onEnd) throw error;
        return onEnd(error);
      }
      this.#active = false;
      onEnd?.();
    };
    slice();
  }

  /** True when no walk is under way or this one has visited `key` (or passed where it would be). */
  reached(key: string): boolean {
    return !this.#active || (this.#after !== undefined && key <= this.#after);
  }
}

/** Visits every key of `keysFrom` as a KeyWalk does; resolves once the last is visited. */
export function eachKeyInSlices(
  keysFrom: (low: string) => Iterable<string>,
  visit: (key: string) => void,
): Promise<void> {
  return new Promise((resolve, reject) =>
    new KeyWalk().start(keysFrom, visit, (error) =>
      error === undefined ? resolve() : reject(error),
    ),
  );
}
