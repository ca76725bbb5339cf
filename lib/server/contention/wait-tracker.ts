/**
 * Every live wait, kept current from the live index's changes (its handler: monitor.ts): per lock, its
 * holder and the waiter entries the nodes list (the union over nodes, by entry id: each contender
 * lists itself on every node it can). A wait starts at its entry's `firstFailedAt` (else `since`)
 * and ends when the console sees its entry leave (the outcomes: live-wait.ts). An entry that lapses
 * (its score passes, no removal seen), a session proven gone, or a lock that stays unreadable ends
 * it too, with an outcome the statistics leave out or date from the evidence (wait-stats.ts).
 * Memory only; the monitor's bounded reads (node-reads.ts) feed `probed` and `sessionGone`.
 */
import { describeLatin1Key } from "../locks/read/key-name";
import type { WaiterRef } from "../locks/read/waiter-list";
import type { Reads } from "../locks/rows/live-index";
import { leadingValue } from "../locks/rows/quorum";
import type { WaitedLock } from "./graph";
import {
  holderOf,
  listedWaits,
  participantOf,
  type LiveWait,
  type TrackedLock,
  type TrackerHooks,
  type WaitOutcome,
} from "./live-wait";

export type { EndedWait, LiveWait, TrackerHooks, WaitOutcome } from "./live-wait";

/** How often the sweep charges blame (a change of holder charges at once). */
const CHARGE_INTERVAL_MS = 1_000;

/** A lock no node shows for this long ends its waits as unobserved (dated when it vanished). */
export const ABSENT_GRACE_MS = 2_000;

export class WaitTracker {
  readonly #locks = new Map<string, TrackedLock>();
  #version = 0;
  #chargedAtMs = 0;

  constructor(private readonly hooks: TrackerHooks) {}

  /** Locks with live waits, as the graph reads them. */
  locks(): Iterable<WaitedLock> {
    return this.#locks.values();
  }

  /** Bumped whenever a wait starts or ends or a holder changes: the graph is rebuilt only then. */
  get version(): number {
    return this.#version;
  }

  get waitCount(): number {
    let count = 0;
    for (const lock of this.#locks.values()) count += lock.waits.size;
    return count;
  }

  /** Every live wait of `session`. */
  waitsOf(session: string): Array<{ key: string; wait: LiveWait }> {
    const found: Array<{ key: string; wait: LiveWait }> = [];
    for (const [key, lock] of this.#locks)
      for (const wait of lock.waits.values())
        if (wait.session === session) found.push({ key, wait });
    return found;
  }

  /** The index changed `key` (the monitor's index handler). Cheap when nobody waits there. */
  update(key: string, reads: Reads, nowMs = Date.now()): void {
    let lock = this.#locks.get(key);
    // The common case, every change of an uncontended lock: no allocation.
    if (!lock && !reads.some((read) => read?.waiterList)) return;
    const listed = listedWaits(reads);
    if (!lock && listed.size === 0) return;
    lock ??= this.#track(key);
    const leading = leadingValue(reads, (read) => read.expiresAtMs);
    if (!leading) {
      // The waiters list is only read with its lock: unknown until it shows again. The holder
      // that just let go is charged up to now.
      if (lock.absentSinceMs === null) this.#charge(lock, nowMs);
      lock.absentSinceMs ??= nowMs;
      return;
    }
    this.#charge(lock, nowMs);
    // Taken by someone else since the last read: a waiter that left may have held it in between.
    const changed = lock.holder?.value !== leading.value || lock.absentSinceMs !== null;
    if (lock.holder?.value !== leading.value) {
      lock.holder = holderOf(leading.value, lock.resource);
      this.#version += 1;
    }
    lock.absentSinceMs = null;
    const holder = lock.holder;
    for (const [entryId, wait] of lock.waits) {
      const still = listed.get(entryId);
      if (still) wait.expiresAtMs = still.expiresAtMs;
      else
        this.#end(
          lock,
          wait,
          nowMs,
          wait.session !== null && wait.session === holder.id
            ? "acquired"
            : changed
              ? "ended"
              : "gave-up",
        );
    }
    for (const [entryId, ref] of listed)
      if (!lock.waits.has(entryId)) {
        this.#version += 1;
        lock.waits.set(entryId, {
          participant: participantOf(ref),
          entryId,
          session: ref.session,
          labels: ref.labels,
          sinceMs: ref.sinceMs,
          expiresAtMs: ref.expiresAtMs,
          chargedUntilMs: ref.sinceMs,
        });
      }
    if (lock.waits.size === 0) this.#locks.delete(key);
  }

  /** Locks no node shows while waits on them are live (their waiters lists are probed), at most `limit`. */
  absentKeys(limit: number): string[] {
    const keys: string[] = [];
    for (const [key, lock] of this.#locks) {
      if (keys.length >= limit) break;
      if (lock.absentSinceMs !== null) keys.push(key);
    }
    return keys;
  }

  /**
   * The waiters list of a lock that shows free, read at `nowMs` (the union over the nodes that
   * answered): the waits no longer listed ended then, without a holder to tell how.
   */
  probed(key: string, listed: ReadonlyMap<string, WaiterRef>, nowMs: number): void {
    const lock = this.#locks.get(key);
    if (!lock || lock.absentSinceMs === null) return;
    lock.absentSinceMs = nowMs;
    for (const wait of lock.waits.values()) {
      const still = listed.get(wait.entryId);
      if (still) wait.expiresAtMs = still.expiresAtMs;
      else this.#end(lock, wait, nowMs, "ended");
    }
    if (lock.waits.size === 0) this.#locks.delete(key);
  }

  /** Charges blame up to now (once a second), ends lapsed entries and locks unseen for too long. */
  sweep(nowMs = Date.now()): void {
    const charging = nowMs - this.#chargedAtMs >= CHARGE_INTERVAL_MS;
    if (charging) this.#chargedAtMs = nowMs;
    for (const [key, lock] of this.#locks) {
      if (charging) this.#charge(lock, nowMs);
      for (const wait of lock.waits.values()) {
        if (lock.absentSinceMs !== null && nowMs - lock.absentSinceMs > ABSENT_GRACE_MS)
          this.#end(lock, wait, lock.absentSinceMs, "unobserved");
        else if (wait.expiresAtMs < nowMs) this.#end(lock, wait, nowMs, "lapsed");
      }
      if (lock.waits.size === 0) this.#locks.delete(key);
    }
  }

  /** `session` is proven gone (last seen at `lastSeenMs`): its waits ended then. */
  sessionGone(session: string, lastSeenMs: number): void {
    for (const [key, lock] of this.#locks) {
      for (const wait of lock.waits.values())
        if (wait.session === session) this.#end(lock, wait, lastSeenMs, "session-gone");
      if (lock.waits.size === 0) this.#locks.delete(key);
    }
  }

  #track(key: string): TrackedLock {
    const lock: TrackedLock = {
      resource: describeLatin1Key(key).resource,
      holder: null,
      waits: new Map(),
      absentSinceMs: null,
    };
    this.#locks.set(key, lock);
    return lock;
  }

  #charge(lock: TrackedLock, nowMs: number): void {
    const holder = lock.holder;
    for (const wait of lock.waits.values()) {
      const fromMs = Math.max(wait.chargedUntilMs, wait.sinceMs);
      if (holder && lock.absentSinceMs === null && nowMs > fromMs)
        this.hooks.blamed(holder, lock.resource, nowMs - fromMs, nowMs);
      wait.chargedUntilMs = Math.max(wait.chargedUntilMs, nowMs);
    }
  }

  #end(lock: TrackedLock, wait: LiveWait, endMs: number, outcome: WaitOutcome): void {
    lock.waits.delete(wait.entryId);
    this.#version += 1;
    this.hooks.ended({
      resource: lock.resource,
      wait,
      endMs: Math.max(endMs, wait.sinceMs),
      outcome,
    });
  }
}
