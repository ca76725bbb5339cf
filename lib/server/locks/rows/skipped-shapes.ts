/**
 * What the list (`/api/locks`' `listing.skippedShapes`) says of the key shapes skipped on
 * notifications (watch/events/shape-table.ts): how many over the nodes, and how late a lock under
 * them may show, in words, since a list that calls itself complete must say what it reads lazily.
 */
import type { Listing, NodeIndex } from "@/lib/api";

/** "1 s", "5 min 10 s": the bound as a reader says it. */
function formatDurationMs(ms: number): string {
  const seconds = Math.ceil(ms / 1_000);
  if (seconds < 60) return `${seconds} s`;
  const rest = seconds % 60;
  return `${Math.floor(seconds / 60)} min${rest > 0 ? ` ${rest} s` : ""}`;
}

export function skippedShapesOf(
  statuses: ReadonlyArray<{ readonly nodeId: string; readonly status: NodeIndex }>,
): Listing["skippedShapes"] {
  const skipping = statuses.filter(({ status }) => (status.eventReads?.skippedShapeCount ?? 0) > 0);
  if (skipping.length === 0) return null;
  const shapes = Math.max(...skipping.map(({ status }) => status.eventReads!.skippedShapeCount));
  const lateByAtMostMs = Math.max(
    ...skipping.map(({ status }) => status.eventReads!.lateByAtMostMs),
  );
  const overBound = skipping.filter(
    ({ status }) => status.eventReads!.expirySamples.unreadPerS > 0,
  );
  const kinds = `${shapes.toLocaleString("en")} key ${shapes === 1 ? "shape" : "shapes"}`;
  const head =
    `${kinds} never held a lock and ${shapes === 1 ? "is" : "are"} not read on every change ` +
    `(on ${skipping.map(({ nodeId }) => nodeId).join(", ")})`;
  const sampling = skipping.every(
    ({ status }) => status.eventReads!.expirySamples.readsPerSMax > 0,
  );
  if (!sampling)
    return {
      shapes,
      lateByAtMostMs,
      note: `${head}: a lock under them shows by the resync, at worst ${formatDurationMs(lateByAtMostMs)} late.`,
    };
  if (overBound.length > 0)
    return {
      shapes,
      lateByAtMostMs,
      note:
        `${head}; their keys given an expiry are read up to a bound per second per node, and on ` +
        `${overBound.map(({ nodeId }) => nodeId).join(", ")} more arrive than it allows: a lock ` +
        `under them may show up to ${formatDurationMs(lateByAtMostMs)} late. Raise ` +
        "CONSOLE_SHAPE_SAMPLES_PER_S, or narrow LOCK_MATCH to the locks' keys.",
    };
  return {
    shapes,
    lateByAtMostMs,
    note: `${head}; every key of them given an expiry (as every lock is) is read, so a lock under them shows within ${formatDurationMs(lateByAtMostMs)}.`,
  };
}
