/**
 * The keyspace patterns a node's watch subscribes to: the narrowest that cover the lock patterns
 * and the library's auxiliary keys of their resources (waiters, revoke markers, 1.x owner entries),
 * and what each pattern costs: notifications received per second. Redis sends one message per
 * matching pattern, so overlapping patterns cost twice; `*` alone covers everything once.
 */
import { RESERVED_PREFIX } from "@redlock-console/redlock";
import { RateWindow } from "../io/rate-window";

const RATE_WINDOW_MS = 10_000;

/**
 * Key patterns (without the channel prefix) for lock patterns `patterns`. An auxiliary key of a
 * resource `r` is `redlock:{r}:<kind>` or ends in `:r` (hash-tagged, odd and 1.x names:
 * lib/redlock/keys.ts), so `redlock:{p}:*` and `redlock:*:p` cover those of every `r` matching `p`,
 * and not the sessions' heartbeats or other resources' keys.
 */
export function subscriptionPatterns(patterns: readonly string[]): string[] {
  if (patterns.includes("*")) return ["*"];
  const auxiliary = patterns.flatMap((pattern) => [
    `${RESERVED_PREFIX}{${pattern}}:*`,
    `${RESERVED_PREFIX}*:${pattern}`,
  ]);
  return [...new Set([...patterns, ...auxiliary])];
}

/** Notifications received per subscribed pattern (channel pattern, as Redis names it). */
export class PatternCounts {
  readonly #counts = new Map<string, RateWindow>();
  readonly #prefixLength: number;

  constructor(channelPrefix: string) {
    this.#prefixLength = channelPrefix.length;
  }

  /** A message matched `channelPattern` (the pattern as subscribed, with its channel prefix). */
  add(channelPattern: Buffer, nowMs: number): void {
    const pattern = channelPattern.toString("latin1", this.#prefixLength);
    let window = this.#counts.get(pattern);
    if (!window) this.#counts.set(pattern, (window = new RateWindow(RATE_WINDOW_MS, nowMs)));
    window.add(nowMs);
  }

  /** Each subscribed pattern and its notifications per second, in subscription order. */
  rates(patterns: readonly string[], nowMs: number) {
    return patterns.map((pattern) => ({
      pattern,
      notificationsPerS: this.#counts.get(pattern)?.perS(nowMs) ?? 0,
    }));
  }
}
