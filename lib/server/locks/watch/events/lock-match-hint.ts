/**
 * A LOCK_MATCH suggested from what the console found: the shapes that held locks, as globs (a shape
 * is one), and what the node would save under it: the notifications of keys no suggested pattern
 * matches, and the reads (samples, untracked shapes) still made for them. It covers the locks seen
 * since the console started; the UI says so, since a lock under another shape would go unseen.
 */
import type { LockMatchSuggestion } from "@/lib/api";
import { compileGlob } from "../../read/glob";
import type { ShapeEntry } from "./shape-table";

/** More lock shapes than this are suggested by their first segment (`orders*`), or not at all. */
const MAX_PATTERNS = 8;

/** Patterns covering `shapes`: the shapes themselves, or their first segments when too many. */
function patternsFor(shapes: readonly string[]): string[] | null {
  const exact = [...new Set(shapes)].sort();
  if (exact.length <= MAX_PATTERNS) return exact;
  const prefixes = [...new Set(exact.map((shape) => `${/^[^:/.|#_*-]*/.exec(shape)![0]}*`))];
  return prefixes.length <= MAX_PATTERNS ? prefixes.sort() : null;
}

/**
 * The suggestion for one node; null when no lock was found, when the locks need `*` anyway, or when
 * `current` (LOCK_MATCH) is the suggestion already.
 */
export function suggestLockMatch(
  entries: Iterable<ShapeEntry>,
  current: readonly string[],
  nowMs: number,
): LockMatchSuggestion | null {
  const all = [...entries];
  const lockShapes = all.filter((entry) => entry.locksFound > 0).map((entry) => entry.shape);
  if (lockShapes.length === 0) return null;
  const patterns = patternsFor(lockShapes);
  if (!patterns || patterns.some((pattern) => /^\**$/.test(pattern))) return null;
  if (patterns.join("\n") === [...current].sort().join("\n")) return null;
  const matchers = patterns.map(compileGlob);
  let notificationsAvoidedPerS = 0;
  let readsAvoidedPerS = 0;
  for (const entry of all) {
    if (matchers.some((matches) => matches(entry.example))) continue;
    notificationsAvoidedPerS += entry.notified.perS(nowMs);
    readsAvoidedPerS += entry.read.perS(nowMs);
  }
  return { patterns, notificationsAvoidedPerS, readsAvoidedPerS };
}
