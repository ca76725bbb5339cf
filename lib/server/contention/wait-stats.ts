/**
 * What ended waits and blame add up to over the last hour, in memory and bounded: the completed
 * waits (at most MAX_WAITS_KEPT, the oldest dropped first) for percentiles per minute and owner
 * `service` and per lock, and per minute the wait each blocker caused (at most MAX_BLOCKERS_PER_MINUTE
 * blockers a minute; the rest add up under "other"). Only waits whose end was seen count (acquired,
 * gave up, session proven gone): a lapsed entry or an unreadable lock has no known end.
 */
import type { EndedWait } from "./wait-tracker";
import type { WaitedLock } from "./graph";

export const STATS_WINDOW_MS = 3_600_000;
const MINUTE_MS = 60_000;
const MAX_WAITS_KEPT = 50_000;
const MAX_BLOCKERS_PER_MINUTE = 1_000;
const MAX_LOCKS_PER_BLOCKER = 20;

export interface CompletedWait {
  readonly resource: string;
  readonly service: string;
  readonly participant: string;
  readonly durationMs: number;
  readonly endMs: number;
  readonly outcome: EndedWait["outcome"];
}

interface BlockerMinute {
  readonly labels: Readonly<Record<string, string>>;
  readonly locks: Set<string>;
  waitMs: number;
}

export interface TopBlocker {
  readonly id: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly locks: string[];
  readonly waitCausedMs: number;
}

/** The waits whose end is known: the statistics' sample. */
export const COUNTED_OUTCOMES: ReadonlySet<string> = new Set([
  "acquired",
  "gave-up",
  "ended",
  "session-gone",
]);

export const serviceOfLabels = (labels: Readonly<Record<string, string>>) =>
  labels.service ?? "(no service label)";

export class WaitStats {
  readonly #waits: CompletedWait[] = [];
  readonly #blame = new Map<number, Map<string, BlockerMinute>>();

  /** A wait ended; returns it as counted, or null when its end is not known. */
  record(ended: EndedWait): CompletedWait | null {
    if (!COUNTED_OUTCOMES.has(ended.outcome)) return null;
    const completed: CompletedWait = {
      resource: ended.resource,
      service: serviceOfLabels(ended.wait.labels),
      participant: ended.wait.participant,
      durationMs: ended.endMs - ended.wait.sinceMs,
      endMs: ended.endMs,
      outcome: ended.outcome,
    };
    this.#waits.push(completed);
    if (this.#waits.length > MAX_WAITS_KEPT)
      this.#waits.splice(0, this.#waits.length - MAX_WAITS_KEPT);
    return completed;
  }

  blame(
    holder: NonNullable<WaitedLock["holder"]>,
    resource: string,
    waitMs: number,
    nowMs: number,
  ): void {
    const minute = Math.floor(nowMs / MINUTE_MS);
    let blockers = this.#blame.get(minute);
    if (!blockers) {
      blockers = new Map();
      this.#blame.set(minute, blockers);
      for (const old of this.#blame.keys())
        if (old <= minute - STATS_WINDOW_MS / MINUTE_MS) this.#blame.delete(old);
    }
    const id =
      blockers.has(holder.id) || blockers.size < MAX_BLOCKERS_PER_MINUTE ? holder.id : "other";
    let entry = blockers.get(id);
    if (!entry) {
      entry = { labels: id === "other" ? {} : holder.labels, locks: new Set(), waitMs: 0 };
      blockers.set(id, entry);
    }
    entry.waitMs += waitMs;
    if (entry.locks.size < MAX_LOCKS_PER_BLOCKER) entry.locks.add(resource);
  }

  /** Completed waits that ended in the last `windowMs` (at most the last hour). */
  waits(nowMs: number, windowMs = STATS_WINDOW_MS): CompletedWait[] {
    let stale = 0;
    while (stale < this.#waits.length && this.#waits[stale]!.endMs < nowMs - STATS_WINDOW_MS)
      stale += 1;
    this.#waits.splice(0, stale);
    return this.#waits.filter((wait) => wait.endMs >= nowMs - windowMs);
  }

  /** The blockers that caused the most wait in the last hour, most first. */
  topBlockers(nowMs: number, limit: number): TopBlocker[] {
    const fromMinute = Math.floor((nowMs - STATS_WINDOW_MS) / MINUTE_MS);
    const total = new Map<
      string,
      { labels: Readonly<Record<string, string>>; locks: Set<string>; waitMs: number }
    >();
    for (const [minute, blockers] of this.#blame) {
      if (minute <= fromMinute) continue;
      for (const [id, entry] of blockers) {
        const sum = total.get(id) ?? { labels: entry.labels, locks: new Set<string>(), waitMs: 0 };
        sum.waitMs += entry.waitMs;
        for (const lock of entry.locks)
          if (sum.locks.size < MAX_LOCKS_PER_BLOCKER) sum.locks.add(lock);
        total.set(id, sum);
      }
    }
    return [...total]
      .sort(([, a], [, b]) => b.waitMs - a.waitMs)
      .slice(0, limit)
      .map(([id, sum]) => ({
        id,
        labels: sum.labels,
        locks: [...sum.locks],
        waitCausedMs: Math.round(sum.waitMs),
      }));
  }
}

/** The `fraction` quantile (0..1) of ascending `sorted`, nearest rank; null when empty. */
export function quantile(sorted: readonly number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(fraction * sorted.length));
  return sorted[rank - 1]!;
}
