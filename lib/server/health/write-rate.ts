import "server-only";
/**
 * A master's write rate, from the INFO the node report already reads (no command of its own): the
 * change of `rdb_changes_since_last_save` (Redis' dirty counter: one per key written) and of
 * `expired_keys` + `evicted_keys` between two reports. Every keyspace event the console needs is one
 * of these, so this is what turning events on would make the master publish. One meter serves every
 * viewer: the report itself is shared (singleFlight in console.ts).
 */
import type { WriteRate } from "@/lib/api";

/** Shorter than this since the last sample, the last rate stands: a 10 ms window is noise. */
const MIN_WINDOW_MS = 1_000;

interface Sample {
  readonly atMs: number;
  readonly runId: string;
  /** rdb_last_save_time: a save resets the dirty counter, so a window across one is not counted. */
  readonly lastSaveS: string;
  readonly dirty: number;
  readonly removed: number;
}

export interface WriteRateMeter {
  /** The write rate of node `nodeId` since its previous sample; null until two samples exist. */
  sample(nodeId: string, info: Record<string, string>, atMs: number): WriteRate | null;
}

const counter = (text: string | undefined): number | null => {
  const value = Number(text);
  return text === undefined || text === "" || !Number.isFinite(value) ? null : value;
};

function sampleOf(info: Record<string, string>, atMs: number): Sample | null {
  const dirty = counter(info.rdb_changes_since_last_save);
  const expired = counter(info.expired_keys);
  const evicted = counter(info.evicted_keys);
  if (dirty === null || expired === null || evicted === null) return null;
  return {
    atMs,
    runId: info.run_id ?? "",
    lastSaveS: info.rdb_last_save_time ?? "",
    dirty,
    removed: expired + evicted,
  };
}

/** Per second over the window, or null when the counters cannot be compared (restart, save). */
function rateBetween(before: Sample, after: Sample): WriteRate | null {
  const windowMs = after.atMs - before.atMs;
  const comparable =
    before.runId === after.runId &&
    before.lastSaveS === after.lastSaveS &&
    after.dirty >= before.dirty &&
    after.removed >= before.removed;
  if (!comparable || windowMs <= 0) return null;
  const perS = (count: number) => Math.round((count * 1_000) / windowMs);
  return {
    keyWritesPerS: perS(after.dirty - before.dirty),
    expiriesPerS: perS(after.removed - before.removed),
    measuredOverMs: windowMs,
  };
}

export function createWriteRateMeter(): WriteRateMeter {
  const last = new Map<string, { sample: Sample; rate: WriteRate | null }>();
  return {
    sample(nodeId, info, atMs) {
      const now = sampleOf(info, atMs);
      const previous = last.get(nodeId);
      if (!now) return null;
      if (previous && atMs - previous.sample.atMs < MIN_WINDOW_MS) return previous.rate;
      const rate = previous ? rateBetween(previous.sample, now) : null;
      last.set(nodeId, { sample: now, rate });
      return rate;
    },
  };
}
