"use client";

import { useMemo } from "react";
import { ErrorNotice } from "@/components/error-notice";
import { LocksFilters } from "@/components/locks-filters";
import { LocksTable } from "@/components/locks-table";
import { NodeStrip } from "@/components/node-strip";
import { sortLocks } from "@/components/sort-locks";
import { MAX_ROWS, useLocks } from "../_queries/locks";
import { useNodes } from "../_queries/nodes";
import { LocksSummary } from "./locks-summary";
import { useOverviewParams } from "./use-overview-params";

function NodesSection() {
  const { data, error } = useNodes();
  if (error && !data) return <ErrorNotice error={error} title="Node status unavailable" />;
  if (!data) return <p className="muted">Loading nodes…</p>;
  return <NodeStrip nodes={data.nodes} quorumSize={data.quorumSize} />;
}

function LocksSection() {
  const { filter, sortKey, sortDirection, setMatch, setState, toggleSort } = useOverviewParams();
  const locks = useLocks(filter);
  const rows = useMemo(
    () => sortLocks(locks.data?.items ?? [], sortKey, sortDirection),
    [locks.data, sortKey, sortDirection],
  );

  return (
    <section aria-labelledby="locks-heading">
      <h2 id="locks-heading">Locks</h2>
      <LocksFilters
        match={filter.match}
        state={filter.state}
        counts={locks.data?.counts ?? null}
        onMatchChange={setMatch}
        onStateChange={setState}
      />
      {locks.error && <ErrorNotice error={locks.error} title="Locks could not be loaded" />}
      {locks.data && <LocksSummary locks={locks.data} shown={rows.length} cappedAt={MAX_ROWS} />}
      {locks.isPending && !locks.error && <p className="muted">Scanning the nodes…</p>}
      {locks.data && rows.length === 0 && (
        <p className="notice notice-info">
          {filter.match || filter.state ? "No lock matches these filters." : "No locks are held right now."}
        </p>
      )}
      {rows.length > 0 && (
        <LocksTable rows={rows} sortKey={sortKey} sortDirection={sortDirection} onSort={toggleSort} />
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
