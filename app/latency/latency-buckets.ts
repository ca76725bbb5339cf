/** Turns raw latency samples into time buckets with percentiles, the shape the charts draw. */
import type { LatencyResponse } from "@/lib/api";

/** Nearest-rank percentile of sorted values; `fraction` in 0..1. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(fraction * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

/** About 40 points across any window, at a round bucket width. */
export function bucketWidthMs(windowMs: number): number {
  const widths = [1_000, 5_000, 10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000];
  return widths.find((width) => windowMs / width <= 40) ?? 3_600_000;
}

function groupByBucket<T extends { at: number }>(
  samples: readonly T[],
  widthMs: number,
): Map<number, T[]> {
  const buckets = new Map<number, T[]>();
  for (const sample of samples) {
    const start = Math.floor(sample.at / widthMs) * widthMs;
    const bucket = buckets.get(start);
    if (bucket) bucket.push(sample);
    else buckets.set(start, [sample]);
  }
  return buckets;
}

export interface QuorumPoint {
  at: number;
  /** Median time until the quorum answered, ms. */
  p50Ms: number;
  /** 99th percentile, ms. */
  p99Ms: number;
  failures: number;
}

export function quorumPoints(quorum: LatencyResponse["quorum"], widthMs: number): QuorumPoint[] {
  return [...groupByBucket(quorum, widthMs)]
    .sort(([a], [b]) => a - b)
    .map(([at, samples]) => {
      const sorted = samples.map((sample) => sample.latencyMs).sort((a, b) => a - b);
      const failures = samples.filter((sample) => sample.outcome === "failure").length;
      return { at, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), failures };
    });
}

/** One row per bucket: `at` plus each node's median latency under its node id (absent: no answer). */
export type NodePoint = { at: number } & Record<string, number>;

export function nodePoints(nodes: LatencyResponse["nodes"], widthMs: number): NodePoint[] {
  const rows = new Map<number, NodePoint>();
  for (const node of nodes) {
    const answered = node.samples.filter((sample) => sample.latencyMs !== null);
    for (const [at, samples] of groupByBucket(answered, widthMs)) {
      const row = rows.get(at) ?? ({ at } as NodePoint);
      row[node.nodeId] = percentile(
        samples.map((sample) => sample.latencyMs!).sort((a, b) => a - b),
        0.5,
      );
      rows.set(at, row);
    }
  }
  return [...rows.values()].sort((a, b) => a.at - b.at);
}
