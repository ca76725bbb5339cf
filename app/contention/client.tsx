"use client";

import { useState } from "react";
import { ErrorNotice } from "@/components/ui/error-notice";
import { formatDurationWords } from "@/components/ui/format";
import type { ContentionResponse } from "@/lib/api";
import { useContention, useWaits } from "../_queries/contention";
import { ChartLineWaitTime } from "./chart-line-wait-time";
import { ChainWords } from "./chain-words";
import { CycleCard } from "./cycle-card";
import { WaitListTable } from "./wait-list-table";
import { ObjectivesTable, TopBlockersTable, WaitLocksTable } from "./wait-tables";

function GraphStatus({ graph }: { graph: ContentionResponse }) {
  return (
    <p className="muted" role="status">
      {graph.waits === 0
        ? "Nobody waits for a lock right now."
        : `${graph.waits} contenders wait now.`}{" "}
      A new deadlock shows here within {formatDurationWords(graph.detectionBoundMs)}.{" "}
      {graph.cycleEpisodesTotal} deadlock episodes since the console started.
      {graph.partial &&
        " The index is still listing a node (or is full): some waits may be missing."}
    </p>
  );
}

function Chains({ graph }: { graph: ContentionResponse }) {
  if (graph.chains.length === 0)
    return <p className="muted">No wait chain: no contender waits behind a holder.</p>;
  return (
    <>
      <ol className="stack wrap-anywhere" aria-label="Wait chains, longest first">
        {graph.chains.map((chain) => (
          <li key={chain.sessions.join(">")} data-chain-length={chain.sessions.length}>
            <ChainWords chain={chain} participants={graph.participants} />{" "}
            <span className="muted">
              Longest wait so far: {formatDurationWords(chain.longestWaitMs)}.
            </span>
          </li>
        ))}
      </ol>
      {graph.chainsTotal > graph.chains.length && (
        <p className="muted">
          {graph.chainsTotal - graph.chains.length} shorter chains are not listed.
        </p>
      )}
    </>
  );
}

/** Who blocks whom now (chains, cycles), and the last hour's wait times, blockers and objectives. */
export function ContentionClient() {
  const graph = useContention();
  const [chartedLock, setChartedLock] = useState<string | null>(null);
  const waits = useWaits(chartedLock);
  return (
    <div className="stack">
      <h1>Contention</h1>
      <p className="muted">
        Who waits for whom across locks: a contender waits for a lock, whose holder may itself wait
        for another. Built from the lock nodes&apos; waiter entries as the live index sees them.
      </p>
      {graph.error && <ErrorNotice error={graph.error} title="The wait-for graph is unavailable" />}
      {!graph.data && !graph.error && <p className="muted">Loading the wait-for graph…</p>}
      {graph.data && (
        <>
          <GraphStatus graph={graph.data} />
          <section aria-labelledby="cycles-heading" className="stack">
            <h2 id="cycles-heading">Deadlock cycles</h2>
            {graph.data.cycles.length === 0 ? (
              <p className="notice notice-ok">No deadlock cycle now.</p>
            ) : (
              graph.data.cycles.map((cycle) => (
                <CycleCard
                  key={cycle.episodeId}
                  cycle={cycle}
                  participants={graph.data.participants}
                />
              ))
            )}
          </section>
          <section aria-labelledby="waits-now-heading">
            <h2 id="waits-now-heading">Every wait now</h2>
            <WaitListTable graph={graph.data} />
          </section>
          <section aria-labelledby="chains-heading">
            <h2 id="chains-heading">Wait chains, longest first</h2>
            <Chains graph={graph.data} />
          </section>
        </>
      )}
      <section aria-labelledby="wait-times-heading" className="stack">
        <h2 id="wait-times-heading">Wait times, last hour</h2>
        {waits.error && <ErrorNotice error={waits.error} title="Wait times are unavailable" />}
        {waits.data && (
          <label>
            Chart the waits of{" "}
            <select
              // A long lock name must not widen the page past a phone's width.
              style={{ maxWidth: "100%" }}
              value={chartedLock ?? ""}
              onChange={(event) => setChartedLock(event.target.value || null)}
            >
              <option value="">every lock</option>
              {waits.data.locks.map((lock) => (
                <option key={lock.resource} value={lock.resource}>
                  {lock.resource}
                </option>
              ))}
            </select>
          </label>
        )}
        {waits.data && waits.data.series.length === 0 && (
          <p className="muted">
            No wait {chartedLock === null ? "" : `on ${chartedLock} `}ended in the last hour.
          </p>
        )}
        {waits.data && waits.data.series.length > 0 && (
          <ChartLineWaitTime series={waits.data.series} />
        )}
        {waits.data && <WaitLocksTable locks={waits.data.locks} />}
      </section>
      <section aria-labelledby="blockers-heading">
        <h2 id="blockers-heading">Top blockers, last hour</h2>
        {waits.data && <TopBlockersTable blockers={waits.data.topBlockers} />}
      </section>
      <section aria-labelledby="objectives-heading">
        <h2 id="objectives-heading">Wait-time objectives</h2>
        {waits.data && <ObjectivesTable objectives={waits.data.objectives} />}
      </section>
    </div>
  );
}
