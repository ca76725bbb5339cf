/**
 * Failed-login limiter: a sliding window per client and one for everyone. The per-client key comes
 * from a header a client can forge, so the global window is what really bounds guessing; a locked
 * login page never blocks bearer-token scripts.
 */
export interface RateLimiter {
  /** Ms until `client` may try again, or 0 when it may now. */
  retryAfterMs(client: string, now?: number): number;
  recordFailure(client: string, now?: number): void;
  reset(client: string): void;
}

export interface RateLimits {
  readonly windowMs: number;
  readonly perClient: number;
  readonly global: number;
}

export const DEFAULT_LOGIN_LIMITS: RateLimits = { windowMs: 60_000, perClient: 5, global: 30 };

export function createRateLimiter(limits: RateLimits = DEFAULT_LOGIN_LIMITS): RateLimiter {
  const failures = new Map<string, number[]>();
  let globalFailures: number[] = [];
  const recent = (times: number[], now: number) =>
    times.filter((time) => now - time < limits.windowMs);
  const wait = (times: number[], limit: number, now: number) =>
    times.length >= limit ? limits.windowMs - (now - times[times.length - limit]!) : 0;
  return {
    retryAfterMs(client, now = Date.now()) {
      globalFailures = recent(globalFailures, now);
      const mine = recent(failures.get(client) ?? [], now);
      return Math.max(wait(mine, limits.perClient, now), wait(globalFailures, limits.global, now));
    },
    recordFailure(client, now = Date.now()) {
      failures.set(client, [...recent(failures.get(client) ?? [], now), now]);
      globalFailures.push(now);
      if (failures.size > 10_000) failures.clear(); // bounded memory under a spray of forged addresses
    },
    reset(client) {
      failures.delete(client);
    },
  };
}
