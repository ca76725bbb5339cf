/**
 * The API's view of what notifications make the console read on a node (eventReadsSchema): the
 * shape table's summary, the subscriptions' cost, how late a lock under a skipped shape may show,
 * and the LOCK_MATCH suggestion; merged over a cluster node's primaries.
 */
import type { EventReads, KeyShapeFigures } from "@/lib/api";
import { suggestLockMatch } from "./lock-match-hint";
import type { ShapeTable } from "./shape-table";

/**
 * How late a lock under a skipped shape shows while its key's `expire` event is read: the change
 * queue's 10 ms and one read, well inside a second even on a loaded node (test/server/skipped-shape-locks.test.ts).
 */
export const SAMPLED_LATE_BY_MS = 1_000;

/** `resyncLateByMs`: the resync interval plus one listing, the bound when samples go unread. */
export function eventReadsOf(
  table: ShapeTable,
  patterns: readonly string[],
  subscriptions: EventReads["subscriptions"],
  resyncLateByMs: number,
  nowMs: number,
): EventReads {
  const summary = table.summary();
  const { readsPerSMax, unreadPerS } = summary.expirySamples;
  const sampled = readsPerSMax > 0 && unreadPerS === 0;
  return {
    ...summary,
    lateByAtMostMs: sampled ? SAMPLED_LATE_BY_MS : resyncLateByMs,
    subscriptions,
    suggestion: suggestLockMatch(table.entries(), patterns, nowMs),
  };
}

/** Shapes of several primaries, the same shape's figures added up, the costliest first. */
function mergeShapes(lists: KeyShapeFigures[][], cost: (figures: KeyShapeFigures) => number) {
  const byShape = new Map<string, KeyShapeFigures>();
  for (const figures of lists.flat()) {
    const known = byShape.get(figures.shape);
    byShape.set(
      figures.shape,
      known
        ? {
            shape: figures.shape,
            reads: known.reads + figures.reads,
            locksFound: known.locksFound + figures.locksFound,
            notificationsPerS: known.notificationsPerS + figures.notificationsPerS,
            readsAvoidedPerS: known.readsAvoidedPerS + figures.readsAvoidedPerS,
          }
        : figures,
    );
  }
  return [...byShape.values()].sort((a, b) => cost(b) - cost(a)).slice(0, 20);
}

/** A cluster node's figures: its primaries' added up; a suggestion only if every primary has one. */
export function mergeEventReads(parts: readonly EventReads[]): EventReads | null {
  if (parts.length === 0) return null;
  const sum = (pick: (part: EventReads) => number) => parts.reduce((t, p) => t + pick(p), 0);
  const withLocks = parts.filter((part) => part.lockShapes.length > 0);
  const suggestions = withLocks.map((part) => part.suggestion);
  const suggestion =
    suggestions.length > 0 && suggestions.every((found) => found !== null)
      ? {
          patterns: [...new Set(suggestions.flatMap((found) => found!.patterns))].sort(),
          notificationsAvoidedPerS: sum((part) => part.suggestion?.notificationsAvoidedPerS ?? 0),
          readsAvoidedPerS: sum((part) => part.suggestion?.readsAvoidedPerS ?? 0),
        }
      : null;
  return {
    readsPerS: sum((part) => part.readsPerS),
    readsAvoidedPerS: sum((part) => part.readsAvoidedPerS),
    shapesTracked: sum((part) => part.shapesTracked),
    untrackedReadsPerS: sum((part) => part.untrackedReadsPerS),
    skippedShapes: mergeShapes(
      parts.map((part) => part.skippedShapes),
      (figures) => figures.readsAvoidedPerS,
    ),
    skippedShapeCount: Math.max(...parts.map((part) => part.skippedShapeCount)),
    lockShapes: mergeShapes(
      parts.map((part) => part.lockShapes),
      (figures) => figures.notificationsPerS,
    ),
    expirySamples: {
      readsPerS: sum((part) => part.expirySamples.readsPerS),
      readsPerSMax: sum((part) => part.expirySamples.readsPerSMax),
      unreadPerS: sum((part) => part.expirySamples.unreadPerS),
    },
    lateByAtMostMs: Math.max(...parts.map((part) => part.lateByAtMostMs)),
    subscriptions: parts[0]!.subscriptions.map(({ pattern }) => ({
      pattern,
      notificationsPerS: sum(
        (part) => part.subscriptions.find((s) => s.pattern === pattern)?.notificationsPerS ?? 0,
      ),
    })),
    suggestion,
  };
}
