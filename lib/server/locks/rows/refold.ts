/**
 * The live index's re-fold of every row when a node comes or goes (every row's view of it changed),
 * in slices of SLICE_MS that yield between them: at 100k locks × 5 nodes one pass takes ~0.5 s,
 * too long to hold requests up; rows not reached yet keep their previous state for that long.
 * First the rows, then the keys no row shows (every node holding them was away). Keys are collected
 * before they are updated, since an update changes the rows being walked.
 */
const SLICE_MS = 8;
const SLICE_KEYS = 1_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface RefoldSource {
  /** The row keys in byte order from the first ≥ `low`. */
  rowKeys(low?: string): Iterator<string>;
  hasRow(key: string): boolean;
  /** Per node, every key it holds. */
  nodeKeys(): Iterable<Iterable<string>>;
  update(key: string): void;
}

/** One slice's worth of the keys from `keys` that pass `wanted`; done: `keys` ran out. */
function sliceOf(
  keys: Iterator<string>,
  wanted: (key: string) => boolean,
): { keys: string[]; done: boolean } {
  const slice: string[] = [];
  const startedAt = performance.now();
  for (let next = keys.next(); !next.done; next = keys.next()) {
    if (wanted(next.value)) slice.push(next.value);
    if (slice.length >= SLICE_KEYS || performance.now() - startedAt > SLICE_MS)
      return { keys: slice, done: false };
  }
  return { keys: slice, done: true };
}

/** Re-folds every key of `source`; stops as soon as `current()` turns false (a newer re-fold, or close). */
export async function refoldInSlices(source: RefoldSource, current: () => boolean): Promise<void> {
  const updated = async (keys: readonly string[]) => {
    if (!current()) return false;
    for (const key of keys) source.update(key);
    await nextTurn();
    return current();
  };
  let after: string | undefined;
  for (let done = false; !done;) {
    const slice = sliceOf(source.rowKeys(after), (key) => key !== after);
    done = slice.done;
    after = slice.keys.at(-1) ?? after;
    if (!(await updated(slice.keys))) return;
  }
  for (const keys of source.nodeKeys()) {
    const unshown = keys[Symbol.iterator]();
    for (let done = false; !done;) {
      const slice = sliceOf(unshown, (key) => !source.hasRow(key));
      done = slice.done;
      if (!(await updated(slice.keys))) return;
    }
  }
}
