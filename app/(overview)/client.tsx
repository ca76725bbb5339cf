"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ErrorNotice } from "@/components/ui/error-notice";
import { useLockChanges } from "../_queries/lock-changes";
import { MAX_ROWS, ROWS_STEP, useLocks, type LocksFilter } from "../_queries/locks";
import { useNodes } from "../_queries/nodes";
import { LocksFilters } from "./locks-filters";
import { ListingNotice } from "@/components/locks/index-status";
import { LocksSummary } from "./locks-summary";
import { LocksTable } from "./locks-table";
import { NodeStrip } from "./node-strip";
import { labelNames } from "./owner-groups";
import { useOverviewParams } from "./use-overview-params";

function NodesSection() {
  const { data, error } = useNodes();
  if (error && !data) return <ErrorNotice error={error} title="Node status unavailable" />;
  if (!data) return <p className="muted">Loading nodes…</p>;
  return <NodeStrip nodes={data.nodes} quorumSize={data.quorumSize} />;
}

/** How many rows the table wants: ROWS_STEP at first, more as it is scrolled; reset by a new filter. */
function useWantedRows(filter: LocksFilter) {
  const filterKey = JSON.stringify(filter);
  const [wanted, setWanted] = useState({ filterKey, rows: ROWS_STEP });
  const rows = wanted.filterKey === filterKey ? wanted.rows : ROWS_STEP;
  const askFor = useCallback(
    (count: number) => {
      const next = Math.min(MAX_ROWS, Math.ceil(count / ROWS_STEP) * ROWS_STEP);
      setWanted((current) =>
        current.filterKey === filterKey && current.rows >= next
          ? current
          : { filterKey, rows: Math.max(next, current.filterKey === filterKey ? current.rows : 0) },
      );
    },
    [filterKey],
  );
  return [rows, askFor] as const;
}

/**
 * The listing's notices (complete, truncated, skipped shapes) change with the index's view of the
 * nodes, which no lock transition reports: while the change stream is open the page is polled only
 * every minute, so a node's index changing (a relist ending, the key cap no longer reached), read
 * every 2 s from the node report this page already polls, re-reads the page at once.
 */
function useListingFollowsNodes(): void {
  const queryClient = useQueryClient();
  const { data } = useNodes();
  const indexKey = data
    ? JSON.stringify(data.nodes.map(({ id, index }) => [id, index.mode, index.truncated]))
    : null;
  const seenKey = useRef<string | null>(null);
  useEffect(() => {
    if (indexKey === null) return;
    const previous = seenKey.current;
    seenKey.current = indexKey;
    // The first report only says what the page's own first read already knows.
    if (previous === null || previous === indexKey) return;
    // A hidden tab does not poll: the listing is marked stale and read again when it is shown.
    void queryClient.invalidateQueries({
      queryKey: ["locks"],
      refetchType: document.visibilityState === "hidden" ? "none" : "active",
    });
  }, [indexKey, queryClient]);
}

function LocksSection() {
  const params = useOverviewParams();
  const { filter, groupBy, toggleSort } = params;
  const [wanted, askFor] = useWantedRows(filter);
  const live = useLockChanges(filter.match, wanted);
  const locks = useLocks(filter, wanted, live);
  useListingFollowsNodes();
  const rows = locks.data?.items ?? [];
  const names = useMemo(() => labelNames(locks.data?.items ?? []), [locks.data]);
  const rowCount = Math.min(MAX_ROWS, locks.data?.total ?? 0);

  return (
    <section aria-labelledby="locks-heading">
      <h2 id="locks-heading">Locks</h2>
      <LocksFilters
        match={filter.match}
        state={filter.state}
        counts={locks.data?.counts ?? null}
        owner={filter.owner}
        groupBy={groupBy}
        labelNames={names}
        onMatchChange={params.setMatch}
        onStateChange={params.setState}
        onOwnerChange={params.setOwner}
        onGroupByChange={params.setGroupBy}
      />
      {locks.error && <ErrorNotice error={locks.error} title="Locks could not be loaded" />}
      {locks.data && <ListingNotice listing={locks.data.listing} />}
      {locks.data && <LocksSummary locks={locks.data} live={live} cappedAt={MAX_ROWS} />}
      {locks.isPending && !locks.error && <p className="muted">Loading the locks…</p>}
      {locks.data && rows.length === 0 && (
        <p className="notice notice-info">
          {!locks.data.listing.complete
            ? "Listing… no locks found yet."
            : filter.match || filter.state || filter.owner
              ? "No lock matches these filters."
              : "No locks are held right now."}
        </p>
      )}
      {rows.length > 0 && (
        <LocksTable
          rows={rows}
          rowCount={rowCount}
          onNeedRows={askFor}
          sort={filter.sort}
          order={filter.order}
          onSort={toggleSort}
          groupBy={groupBy}
        />
      )}
    </section>
  );
}

export function OverviewClient() {
  return (
    <>
      <h1>Live locks</h1>
      <NodesSection />
      <LocksSection />
    </>
  );
}
