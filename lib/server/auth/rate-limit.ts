/**
 * Per-client limiters. Failed credentials: a sliding window per client address, and deliberately no
 * window shared by everyone, which would let any anonymous client lock the real admin out (the
 * admin token is required to be high-entropy, so a per-client bound is what stops guessing scripts;
 * guessing a 128-bit token is hopeless at any rate). Reads: a token bucket per client, so one client
 * cannot monopolise the server with expensive snapshot filters. Both forget the least recently seen
 * clients beyond `maxClients`, so a spray of addresses costs bounded memory and, since the oldest
 * are forgotten first, cannot wipe an active guesser's record.
 */

/** Ms until `client` may try again, or 0 when it may now. */
export interface FailureLimiter {
  retryAfterMs(client: string, now?: number): number;
  /** Records a failure; true when it is the client's first in the current window. */
  recordFailure(client: string, now?: number): boolean;
  reset(client: string): void;
}

export interface FailureLimits {
  readonly windowMs: number;
  /** Failures a client may make per window before it must wait. */
  readonly perClient: number;
  readonly maxClients: number;
}

export const DEFAULT_FAILURE_LIMITS: FailureLimits = {
  windowMs: 60_000,
  perClient: 10,
  maxClients: 10_000,
};

/** A Map used as an LRU: touching a key moves it to the end; the first key is the oldest. */
function touch<V>(map: Map<string, V>, key: string, value: V, maxEntries: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > maxEntries) map.delete(map.keys().next().value!);
}

export function createFailureLimiter(
  limits: FailureLimits = DEFAULT_FAILURE_LIMITS,
): FailureLimiter {
  const failures = new Map<string, number[]>();
  const recent = (client: string, now: number) =>
    (failures.get(client) ?? []).filter((time) => now - time < limits.windowMs);
  return {
    retryAfterMs(client, now = Date.now()) {
      const mine = recent(client, now);
      return mine.length >= limits.perClient
        ? limits.windowMs - (now - mine[mine.length - limits.perClient]!)
        : 0;
    },
    recordFailure(client, now = Date.now()) {
      const mine = recent(client, now).slice(-limits.perClient);
      touch(failures, client, [...mine, now], limits.maxClients);
      return mine.length === 0;
    },
    reset(client) {
      failures.delete(client);
    },
  };
}

export interface ReadLimiter {
  /** Takes one request from the client's bucket: 0 if allowed, else ms until one is available. */
  take(client: string, now?: number): number;
}

export interface ReadLimits {
  /** Sustained requests per second per client. */
  readonly perSecond: number;
  /** Requests a client may make at once after a pause (the bucket's size). */
  readonly burst: number;
  readonly maxClients: number;
}

export function createReadLimiter(limits: ReadLimits): ReadLimiter {
  const buckets = new Map<string, { tokens: number; atMs: number }>();
  return {
    take(client, now = Date.now()) {
      const bucket = buckets.get(client) ?? { tokens: limits.burst, atMs: now };
      const tokens = Math.min(
        limits.burst,
        bucket.tokens + ((now - bucket.atMs) / 1000) * limits.perSecond,
      );
      const allowed = tokens >= 1;
      touch(
        buckets,
        client,
        { tokens: allowed ? tokens - 1 : tokens, atMs: now },
        limits.maxClients,
      );
      return allowed ? 0 : Math.ceil(((1 - tokens) / limits.perSecond) * 1000);
    },
  };
}
