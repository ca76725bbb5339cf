/** Small statistics helpers for the benchmarks: percentiles, medians, fairness. */

/** The p-th percentile (0..100) of `values`, nearest-rank; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (values: readonly number[]) => percentile(values, 50);

/**
 * Jain's fairness index of per-client shares: 1 when every client got the same, 1/n when one got
 * everything. Robust to the total, so runs of different lengths compare.
 */
export function jainIndex(shares: readonly number[]): number {
  const sum = shares.reduce((total, share) => total + share, 0);
  const squares = shares.reduce((total, share) => total + share * share, 0);
  return squares === 0 ? Number.NaN : (sum * sum) / (shares.length * squares);
}

/** Median of each numeric field over rounds: rounds[i][field] -> result[field]. */
export function medianOfRounds<T extends Record<string, number>>(rounds: readonly T[]): T {
  const fields = Object.keys(rounds[0] ?? {}) as (keyof T)[];
  return Object.fromEntries(
    fields.map((field) => [field, median(rounds.map((round) => round[field]))]),
  ) as T;
}

/** Rounds to `digits` significant decimals for tables and JSON. */
export const round = (value: number, digits = 2) =>
  Number.isFinite(value) ? Number(value.toFixed(digits)) : value;
