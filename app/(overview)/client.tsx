"use client";

import { useMemo } from "react";
import { ErrorNotice } from "@/components/ui/error-notice";
import { MAX_ROWS, useLocks } from "../_queries/locks";
import { useNodes } from "../_queries/nodes";
import { LocksFilters } from "./locks-filters";
import { ListingNotice } from "@/components/locks/index-status";
import { LocksSummary } from "./locks-summary";
import { LocksTable } from "./locks-table";
import { NodeStrip } from "./node-strip";
import { labelNames, matchesOwner, parseOwnerFilter } from "./owner-groups";
import { sortLocks } from "./sort-locks";
import { useOverviewParams } from "./use-overview-params";

function NodesSection() {
  const { data, error } = useNodes();
  if (error && !data) return <ErrorNotice error={error} title="Node status unavailable" />;
  if (!data) return <p className="muted">Loading nodes…</p>;
  return <NodeStrip nodes={data.nodes} quorumSize={data.quorumSize} />;
}

function LocksSection() {
  const params = useOverviewParams();
  const { filter, owner, groupBy, sortKey, sortDirection, toggleSort } = params;
  const locks = useLocks(filter);
  const rows = useMemo(() => {
    const ownerFilter = parseOwnerFilter(owner);
    const kept = (locks.data?.items ?? []).filter((row) => matchesOwner(row, ownerFilter));
    return sortLocks(kept, sortKey, sortDirection);
  }, [locks.data, owner, sortKey, sortDirection]);
  const names = useMemo(() => labelNames(locks.data?.items ?? []), [locks.data]);

  return (
    <section aria-labelledby="locks-heading">
      <h2 id="locks-heading">Locks</h2>
      <LocksFilters
        match={filter.match}
        state={filter.state}
        counts={locks.data?.counts ?? null}
        owner={owner}
        groupBy={groupBy}
        labelNames={names}
        onMatchChange={params.setMatch}
        onStateChange={params.setState}
        onOwnerChange={params.setOwner}
        onGroupByChange={params.setGroupBy}
      />
      {locks.error && <ErrorNotice error={locks.error} title="Locks could not be loaded" />}
      {locks.data && <ListingNotice listing={locks.data.listing} />}
      {locks.data && <LocksSummary locks={locks.data} shown={rows.length} cappedAt={MAX_ROWS} />}
      {locks.isPending && !locks.error && <p className="muted">Loading the locks…</p>}
      {locks.data && rows.length === 0 && (
        <p className="notice notice-info">
          {!locks.data.listing.complete
            ? "Listing… no locks found yet."
            : filter.match || filter.state || owner
              ? "No lock matches these filters."
              : "No locks are held right now."}
        </p>
      )}
      {rows.length > 0 && (
        <LocksTable
          rows={rows}
          sortKey={sortKey}
          sortDirection={sortDirection}
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
