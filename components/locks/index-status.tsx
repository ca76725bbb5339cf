"use client";

import { ElapsedSince } from "@/components/locks/held-for";
import type { Listing, NodeIndex } from "@/lib/api";

/** What each mode reads as on a card; a down node's rows are what the index last knew: stale. */
const MODE_TEXT: Record<NodeIndex["mode"], string> = {
  listing: "listing",
  watching: "watching",
  polling: "polling",
  down: "stale",
};

/** Percent of a running listing, or null when unknown. */
const percent = (fraction: number | null) =>
  fraction === null ? null : `${Math.floor(fraction * 100)}%`;

/**
 * How the live index follows one node: its mode ("watching" by notifications, "polling" without
 * them, "listing 42%" while a listing after a start or a gap runs) and how fresh its data is
 * ("as of 2s ago", on the server's clock). Text first: colour only repeats it. What the index reads
 * on a watched node (EventReadsSummary) is a node card's detail, folded there.
 */
export function NodeIndexStatus({ index }: { index: NodeIndex }) {
  const running = index.listing;
  const progress = running ? percent(running.fraction) : null;
  return (
    <div className="index-status">
      <span
        data-testid="node-index-mode"
        className={`badge badge-index-${index.mode}`}
        title={
          index.reason ??
          (running
            ? `${running.reason} listing: ${running.keysVisited.toLocaleString()} of ${running.keysTotal?.toLocaleString() ?? "?"} keys visited, ${running.locksFound.toLocaleString()} locks found, ${running.keysSkipped.toLocaleString()} other keys skipped`
            : `${index.lockKeys.toLocaleString()} lock keys indexed, ${index.skippedKeys.toLocaleString()} other keys skipped; budget ${index.budgetPerS.toLocaleString()} keys/s`)
        }
      >
        {MODE_TEXT[index.mode]}
        {progress && index.mode === "listing" ? ` ${progress}` : ""}
      </span>{" "}
      <span data-testid="node-index-freshness" className="muted">
        {index.asOf === null ? (
          "not listed yet"
        ) : (
          <>
            as of <ElapsedSince sinceMs={index.asOf} label="as of" /> ago
          </>
        )}
      </span>
      {running && running.fraction !== null && (
        <progress
          className="index-progress"
          value={running.fraction}
          max={1}
          aria-label={`listing ${progress}`}
        />
      )}
      {index.truncated && (
        <p data-testid="node-index-truncated" className="notice notice-warn index-reason">
          Key cap reached: {index.lockKeys.toLocaleString()} lock keys indexed and others left out,
          so the list and history of this node are incomplete (a lock&apos;s own page reads the
          node). Raise CONSOLE_SCAN_MAX_KEYS or narrow LOCK_MATCH.
        </p>
      )}
      {index.mode === "polling" && index.polling && (
        <p className="muted" data-testid="node-poll-pace">
          Polled: changes seen within ~
          {Math.max(1, Math.round(index.polling.changesWithinMs / 1_000))} s (
          {index.polling.perS.toLocaleString()} keys/s, about{" "}
          {index.polling.cpuShare === null
            ? "2% of a core of this master at most"
            : `${(index.polling.cpuShare * 100).toFixed(1)}% of a core of this master`}
          ). Holds shorter than that are not seen.
        </p>
      )}
      {index.mode === "polling" && index.reason && (
        <p className="muted index-reason">{index.reason}</p>
      )}
    </div>
  );
}

/**
 * Above the locks table while the index does not hold every node whole: which nodes are still being
 * listed and how far, so a partial table is never taken for the whole.
 */
export function ListingNotice({ listing }: { listing: Listing }) {
  if (listing.complete) return null;
  const pending = listing.nodes.filter((node) => node.mode === "listing");
  if (pending.length === 0) return null;
  const parts = pending.map((node) =>
    node.fraction === null ? node.nodeId : `${node.nodeId} ${percent(node.fraction)}`,
  );
  return (
    <p role="status" data-testid="listing-notice" className="notice notice-info">
      Listing {parts.join(", ")} … rows may be missing until the listing ends.
    </p>
  );
}
