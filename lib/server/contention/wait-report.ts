/**
 * `GET /api/contention/waits`: the last hour of completed waits as percentiles per minute and owner
 * service (the chart), per service and per lock (the tables), with the top blockers and the
 * objectives' burn. Sorting at most the kept waits (50,000) per request: a few ms.
 */
import {
  MAX_SERVICES_CHARTED,
  MAX_TOP_BLOCKERS,
  MAX_WAIT_LOCKS_LISTED,
  type WaitsResponse,
} from "@/lib/api";
import type { ObjectiveTracker } from "./objectives";
import { quantile, STATS_WINDOW_MS, type CompletedWait, type WaitStats } from "./wait-stats";

const MINUTE_MS = 60_000;

function figures(durations: number[]) {
  durations.sort((a, b) => a - b);
  return {
    count: durations.length,
    p50Ms: quantile(durations, 0.5),
    p99Ms: quantile(durations, 0.99),
  };
}

/** Durations grouped by `keyOf`, largest groups first. */
function grouped(waits: readonly CompletedWait[], keyOf: (wait: CompletedWait) => string) {
  const groups = new Map<string, number[]>();
  for (const wait of waits) {
    const key = keyOf(wait);
    const durations = groups.get(key);
    if (durations) durations.push(wait.durationMs);
    else groups.set(key, [wait.durationMs]);
  }
  return [...groups].sort(([, a], [, b]) => b.length - a.length);
}

/** Per minute and service, the `charted` services by name and the rest as "other". */
function seriesOf(waits: readonly CompletedWait[], charted: ReadonlySet<string>) {
  const serviceOf = (wait: CompletedWait) => (charted.has(wait.service) ? wait.service : "other");
  return grouped(
    waits,
    (wait) => `${Math.floor(wait.endMs / MINUTE_MS) * MINUTE_MS}\u0000${serviceOf(wait)}`,
  )
    .map(([key, durations]) => {
      const [minute, service] = key.split("\u0000") as [string, string];
      return { minute: Number(minute), service, ...figures(durations) };
    })
    .sort((a, b) => a.minute - b.minute || a.service.localeCompare(b.service));
}

/** `resource`: chart that lock's waits only (null: every lock's). */
export function waitReport(
  stats: WaitStats,
  objectives: ObjectiveTracker,
  nowMs: number,
  resource: string | null = null,
): WaitsResponse {
  const waits = stats.waits(nowMs);
  const services = grouped(waits, (wait) => wait.service);
  const top = new Set(services.slice(0, MAX_SERVICES_CHARTED).map(([service]) => service));
  const charted = waits.filter((wait) => resource === null || wait.resource === resource);
  return {
    serverTime: nowMs,
    windowMs: STATS_WINDOW_MS,
    series: seriesOf(charted, top),
    resource,
    services: services.map(([service, durations]) => ({ service, ...figures(durations) })),
    locks: grouped(waits, (wait) => wait.resource)
      .slice(0, MAX_WAIT_LOCKS_LISTED)
      .map(([resource, durations]) => ({
        resource,
        ...figures(durations),
        maxMs: durations[durations.length - 1]!,
      })),
    topBlockers: stats.topBlockers(nowMs, MAX_TOP_BLOCKERS),
    objectives: objectives.status(nowMs),
  };
}
