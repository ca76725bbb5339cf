/**
 * What the wait tracker (wait-tracker.ts) keeps per wait and per lock, how a wait can end, and the
 * pure helpers that read a lock's holder and its listed waiters from the index's per-node reads.
 */
import { ownerOfValue, sessionOfValue } from "../locks/read/ownership";
import type { WaiterRef } from "../locks/read/waiter-list";
import type { Reads } from "../locks/rows/live-index";
import type { WaitedLock } from "./graph";

/**
 * How a wait ended. `acquired`: its entry left while its own session held the lock. `gave-up`: it
 * left while the same holder still held. `session-gone`: its session was proven gone (dated at its
 * last heartbeat). `lapsed`: its score passed with no removal seen (no known end). `unobserved`:
 * the lock stayed unreadable. `ended`: its entry left while the lock showed free or changed hands
 * (a short critical section taken and released between two reads): acquired or gave up, unknown.
 */
export type WaitOutcome =
  "acquired" | "gave-up" | "ended" | "session-gone" | "lapsed" | "unobserved";

export interface LiveWait {
  /** Participant id: the session, or `waiter:<entry id>` without one. */
  readonly participant: string;
  readonly entryId: string;
  readonly session: string | null;
  readonly labels: Readonly<Record<string, string>>;
  readonly sinceMs: number;
  expiresAtMs: number;
  /** Until when its wait was charged to a blocker (blame). */
  chargedUntilMs: number;
}

export interface EndedWait {
  readonly resource: string;
  readonly wait: LiveWait;
  readonly endMs: number;
  readonly outcome: WaitOutcome;
}

export interface TrackedLock extends WaitedLock {
  holder: WaitedLock["holder"];
  readonly waits: Map<string, LiveWait>;
  /** When no node showed the lock any more (its waiters cannot be read without it); null: shown. */
  absentSinceMs: number | null;
}

export interface TrackerHooks {
  /** A wait ended. */
  ended(ended: EndedWait): void;
  /** `waitMs` of waiting on `resource` was caused by `holder` (charged as it accrues). */
  blamed(
    holder: NonNullable<WaitedLock["holder"]>,
    resource: string,
    waitMs: number,
    nowMs: number,
  ): void;
}

/** Who waits: its session, or the entry itself when it names none. */
export const participantOf = (ref: WaiterRef) => ref.session ?? `waiter:${ref.id}`;

/** The union over nodes of the entries listed, by id (the latest lapse of each). */
export function listedWaits(reads: Reads): Map<string, WaiterRef> {
  const listed = new Map<string, WaiterRef>();
  for (const read of reads)
    for (const ref of read?.waiterList ?? []) {
      const known = listed.get(ref.id);
      if (!known || known.expiresAtMs < ref.expiresAtMs) listed.set(ref.id, ref);
    }
  return listed;
}

/** The holder a value names: its session, or the lock itself for a holder without one. */
export function holderOf(value: string, resource: string): NonNullable<WaitedLock["holder"]> {
  const session = sessionOfValue(value);
  const labels = ownerOfValue(value)?.labels ?? {};
  return { id: session ?? `holder:${resource}`, labels, value };
}
