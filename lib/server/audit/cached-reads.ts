import "server-only";
/**
 * Audit reads shared between requests: the same query while one is in flight joins it, and its
 * answer serves the same query for AUDIT_READ_MAX_AGE_MS, so twenty readers asking the same
 * search cost the masters one search (issue 49). A write through this console drops what is
 * kept, so its own reads see it at once; another replica's write shows within the max age.
 */
import { keyedSingleFlight } from "../single-flight";

/** How long one audit answer serves the same query. */
export const AUDIT_READ_MAX_AGE_MS = 2_000;
/** Distinct queries kept at most (each answer is bounded by MAX_AUDIT_LIMIT entries). */
const MAX_KEPT_QUERIES = 64;

export interface CachedReads<T> {
  get(query: unknown, load: () => Promise<T>): Promise<T>;
  invalidate(): void;
}

export function cachedReads<T>(maxAgeMs = AUDIT_READ_MAX_AGE_MS): CachedReads<T> {
  let flights = keyedSingleFlight<T>(maxAgeMs, MAX_KEPT_QUERIES);
  return {
    get: (query, load) => flights(JSON.stringify(query), load),
    invalidate() {
      flights = keyedSingleFlight<T>(maxAgeMs, MAX_KEPT_QUERIES);
    },
  };
}
