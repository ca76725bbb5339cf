"use client";

import Link from "next/link";
import { participantPhrase } from "@/components/contention/describe";
import { lockHref } from "@/components/locks/lock-href";
import { formatDurationWords } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import type { WaitsResponse } from "@/lib/api";

/** A wait in words ("12 min 18 s"): the same formatter as every duration on the page. */
const ms = (value: number | null) => (value === null ? "—" : formatDurationWords(value));

/** The holders that made others wait the most in the last hour. */
export function TopBlockersTable({ blockers }: { blockers: WaitsResponse["topBlockers"] }) {
  if (blockers.length === 0)
    return <p className="muted">No holder made anyone wait in the last hour.</p>;
  return (
    <PlainTable
      label="Top blockers"
      columns={["Holder", "Locks", "Wait caused (summed over waiters)"]}
    >
      {blockers.map((blocker) => (
        <tr key={blocker.id}>
          <td>
            {blocker.id === "other" ? (
              "every other holder (past the bound)"
            ) : blocker.id.includes(":") ? (
              participantPhrase(blocker.id, blocker.labels)
            ) : (
              <Link href={`/sessions/${blocker.id}`}>
                {participantPhrase(blocker.id, blocker.labels)}
              </Link>
            )}
          </td>
          <td className="wrap-anywhere">
            {blocker.locks.map((lock) => (
              <div key={lock}>
                <Link href={lockHref(lock)}>{lock}</Link>
              </div>
            ))}
          </td>
          <td>{ms(blocker.waitCausedMs)}</td>
        </tr>
      ))}
    </PlainTable>
  );
}

/** Percentiles per lock, most waited-for first. */
export function WaitLocksTable({ locks }: { locks: WaitsResponse["locks"] }) {
  if (locks.length === 0) return <p className="muted">No wait ended in the last hour.</p>;
  return (
    <PlainTable label="Wait time per lock" columns={["Lock", "Waits", "p50", "p99", "Longest"]}>
      {locks.map((lock) => (
        <tr key={lock.resource}>
          <td className="wrap-anywhere">
            <Link href={lockHref(lock.resource)}>{lock.resource}</Link>
          </td>
          <td>{lock.count}</td>
          <td>{ms(lock.p50Ms)}</td>
          <td>{ms(lock.p99Ms)}</td>
          <td>{ms(lock.maxMs)}</td>
        </tr>
      ))}
    </PlainTable>
  );
}

const burnText = (rate: number | null) =>
  rate === null ? "no covered wait" : `${rate.toFixed(rate < 10 ? 2 : 1)}×`;

/** Each objective, its last hour, and its burn rate over 1 h and 6 h, in words. */
export function ObjectivesTable({ objectives }: { objectives: WaitsResponse["objectives"] }) {
  if (objectives.length === 0)
    return (
      <p className="muted">
        No wait-time objective is configured. Set <code>CONSOLE_WAIT_OBJECTIVES</code>, e.g.{" "}
        <code className="wrap-anywhere">
          {'[{"name":"orders","match":"orders:*","thresholdMs":200,"target":0.99}]'}
        </code>{" "}
        (see docs/console.md).
      </p>
    );
  return (
    <PlainTable
      label="Wait-time objectives"
      columns={["Objective", "Last hour", "Burn 1 h", "Burn 6 h"]}
    >
      {objectives.map((objective) => {
        const fast = (objective.burnRate["1h"] ?? 0) > 14.4;
        return (
          <tr key={objective.name}>
            <td>
              <strong>{objective.name}</strong>:{" "}
              {(objective.target * 100).toFixed(2).replace(/\.?0+$/, "")}% of waits
              {objective.match ? ` on ${objective.match}` : ""}
              {objective.service ? ` by service ${objective.service}` : ""} within{" "}
              {objective.thresholdMs} ms over {objective.windowDays} days
            </td>
            <td>
              {objective.bad1h} of {objective.waits1h} waits too slow
            </td>
            <td className={fast ? "notice-warn" : undefined}>
              {burnText(objective.burnRate["1h"])}
              {fast && " — budget burning fast: see the top blockers"}
            </td>
            <td>{burnText(objective.burnRate["6h"])}</td>
          </tr>
        );
      })}
    </PlainTable>
  );
}
