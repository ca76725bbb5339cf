"use client";

import Link from "next/link";
import { participantPhrase } from "@/components/contention/describe";
import { lockHref } from "@/components/locks/lock-href";
import { formatDurationWords } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import type { ContentionResponse } from "@/lib/api";

/** A participant, linked to its session page when it has one. */
function Who({ id, labels }: { id: string; labels: Record<string, string> }) {
  const phrase = participantPhrase(id, labels);
  return id.includes(":") ? <>{phrase}</> : <Link href={`/sessions/${id}`}>{phrase}</Link>;
}

/**
 * Every wait now, longest first (issue 41 item 5): each contender once per lock it waits for,
 * also those the chains leave out (a session's other waits, a lock between two holders).
 */
export function WaitListTable({ graph }: { graph: ContentionResponse }) {
  if (graph.waits === 0) return <p className="muted">Nobody waits for a lock right now.</p>;
  const listed = graph.waitList.length;
  return (
    <>
      <p className="muted" data-testid="wait-list-count">
        {listed === graph.waits
          ? `All ${graph.waits} waits, longest first.`
          : `The ${listed} longest of ${graph.waits} waits.`}
      </p>
      <PlainTable label="Every wait now" columns={["Waiter", "Lock", "Held by", "Waiting for"]}>
        {graph.waitList.map((wait, index) => (
          <tr key={`${wait.resource}\u0000${wait.waiter}\u0000${index}`}>
            <td className="wrap-anywhere">
              <Who id={wait.waiter} labels={wait.labels} />
            </td>
            <td className="wrap-anywhere">
              <Link href={lockHref(wait.resource)}>{wait.resource}</Link>
            </td>
            <td className="wrap-anywhere">
              {wait.holder ? (
                <Who id={wait.holder.id} labels={wait.holder.labels} />
              ) : (
                <span className="muted">nobody right now (between two holders)</span>
              )}
            </td>
            <td className="nowrap">
              {formatDurationWords(Math.max(0, graph.serverTime - wait.since))}
            </td>
          </tr>
        ))}
      </PlainTable>
    </>
  );
}
