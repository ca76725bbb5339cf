/**
 * A torture run's history as the workers reported it, folded into one record per holder, and the
 * violation shape every check returns.
 */
import type { ExtendedEvent, HeldEvent, ReleasingEvent, WriteEvent } from "./events";

export type ViolationKind =
  "overlap" | "token-order" | "fenced-write-refused" | "stale-write-accepted";

export interface Violation {
  readonly kind: ViolationKind;
  readonly resource: string;
  readonly message: string;
  /** When it happened (epoch ms), to line it up with the faults injected. */
  readonly at: number;
}

export interface Holder extends HeldEvent {
  /** Expiration after the last successful extension (the acquire's when never extended). */
  readonly lastExpiration: number;
  /** End of the window: min(lastExpiration, start of release). */
  readonly windowEnd: number;
}

export interface History {
  readonly held: readonly HeldEvent[];
  readonly extended: readonly ExtendedEvent[];
  readonly releases: readonly ReleasingEvent[];
  readonly writes: readonly WriteEvent[];
}

export function toHolders({ held, extended, releases }: Omit<History, "writes">): Holder[] {
  const lastExpiration = new Map(held.map((event) => [event.value, event.expiration]));
  for (const event of extended)
    lastExpiration.set(
      event.value,
      Math.max(lastExpiration.get(event.value) ?? 0, event.expiration),
    );
  const releasedAt = new Map(releases.map((event) => [event.value, event.at]));
  return held.map((event) => {
    const expiration = lastExpiration.get(event.value)!;
    return {
      ...event,
      lastExpiration: expiration,
      windowEnd: Math.min(expiration, releasedAt.get(event.value) ?? Number.POSITIVE_INFINITY),
    };
  });
}

export const describeHolder = (holder: Holder) =>
  `${holder.value.slice(0, 8)} (worker ${holder.workerId}, token ${holder.token}, ${holder.acquiredAt}..${holder.windowEnd})`;
