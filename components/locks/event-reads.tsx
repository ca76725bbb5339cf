"use client";

import { CopyableCommand } from "@/components/ui/copyable-command";
import { formatDurationMs } from "@/components/ui/format";
import type { EventReads } from "@/lib/api";

const perS = (rate: number) => `${Math.round(rate).toLocaleString()}/s`;

/**
 * With notifications on: what changes make the console read on this node, which key shapes it
 * skips (and so how late a lock under them can show at worst), what each subscription costs, and a
 * narrower LOCK_MATCH with what it would save, offered where the cost shows.
 */
export function EventReadsSummary({ reads }: { reads: EventReads }) {
  const skipped = reads.skippedShapes.map((figures) => figures.shape);
  const subscribed = reads.subscriptions
    .map(({ pattern, notificationsPerS }) => `${pattern} (${perS(notificationsPerS)})`)
    .join(", ");
  return (
    <div className="event-reads muted" data-testid="node-event-reads">
      <p>
        Reads {perS(reads.readsPerS)} changed keys that may be locks; skips{" "}
        {perS(reads.readsAvoidedPerS)}. Notifications by pattern: {subscribed || "none"}.
      </p>
      {reads.skippedShapeCount > 0 && (
        <p data-testid="node-skipped-shapes">
          {reads.skippedShapeCount.toLocaleString()} key{" "}
          {reads.skippedShapeCount === 1 ? "shape" : "shapes"} never held a lock and{" "}
          {reads.skippedShapeCount === 1 ? "is" : "are"} not read on changes (
          {skipped.slice(0, 3).join(", ")}
          {reads.skippedShapeCount > 3 ? ", …" : ""}):{" "}
          {reads.expirySamples.readsPerSMax > 0 && reads.expirySamples.unreadPerS === 0
            ? `each of their keys given an expiry (as every lock is) is still read, up to ${perS(reads.expirySamples.readsPerSMax)}: a lock under them shows within ${formatDurationMs(reads.lateByAtMostMs)}.`
            : `a lock under them shows by the resync, at worst ${formatDurationMs(reads.lateByAtMostMs)} late${reads.expirySamples.unreadPerS > 0 ? ` (${perS(reads.expirySamples.unreadPerS)} of their keys given an expiry go unread beyond the ${perS(reads.expirySamples.readsPerSMax)} bound)` : ""}.`}
        </p>
      )}
      {reads.untrackedReadsPerS > 0 && (
        <p>
          {perS(reads.untrackedReadsPerS)} reads for keys of shapes beyond the{" "}
          {reads.shapesTracked.toLocaleString()} tracked: set LOCK_MATCH to the locks&apos;
          patterns.
        </p>
      )}
      {reads.suggestion && (
        <div data-testid="node-lock-match-suggestion">
          <p>Suggested:</p>
          <CopyableCommand
            command={`LOCK_MATCH=${reads.suggestion.patterns.join(",")}`}
            label="suggested LOCK_MATCH"
          />
          <p>
            It would save {perS(reads.suggestion.notificationsAvoidedPerS)} notifications and{" "}
            {perS(reads.suggestion.readsAvoidedPerS)} reads on this node, and covers the locks seen
            since the console started: a lock under another pattern would go unseen.
          </p>
        </div>
      )}
    </div>
  );
}
