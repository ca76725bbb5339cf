/**
 * The holder-session reads behind `expired` transitions, and each lock's order while one is
 * pending. An expired hold whose value names a session is held back until that session is read,
 * SESSION_CHECK_DELAY_MS after the expiry (expiry-cause.ts says why); so are the lock's later
 * transitions, so that its history stays in order. Other locks go on, and so does the fold: only
 * emission waits. Bounded: one read per session at a time (the holds of one crashed process share
 * it), at most `maxSessions` sessions pending (beyond, the cause is "not-checked"), each read
 * bounded by the node deadline (the reader's). The console reads only on expired holds, so its cost
 * follows lock traffic. No Redis here: the reader is given (read-session.ts in the console).
 */
import type { Transition } from "@/lib/api/timeline";
import type { SessionReading } from "../sessions/liveness";
import { expiryCause, sessionCheckAtMs, type ExpiryCheck } from "./expiry-cause";

/** A transition before its id is given (at emission). */
export type TransitionFields = Pick<Transition, "kind" | "resource" | "at"> &
  Partial<Omit<Transition, "id">>;

/** What every lock node says of one session, bounded by the node deadline; never rejects. */
export type SessionReader = (sessionId: string) => Promise<readonly SessionReading[]>;

export const DEFAULT_MAX_SESSION_CHECKS = 8;

interface Queued {
  fields: TransitionFields;
  ready: boolean;
}

interface PendingRead {
  checkAtMs: number;
  started: boolean;
  readonly expiries: Array<{ readonly key: string; readonly check: ExpiryCheck; entry: Queued }>;
}

export class SessionChecks {
  readonly #read: SessionReader;
  readonly #publish: (fields: TransitionFields) => void;
  readonly #maxSessions: number;
  readonly #now: () => number;
  readonly #pending = new Map<string, PendingRead>();
  /** Per lock key with an expiry waiting for its cause: its transitions since, in order. */
  readonly #queues = new Map<string, Queued[]>();

  constructor(
    read: SessionReader,
    publish: (fields: TransitionFields) => void,
    maxSessions = DEFAULT_MAX_SESSION_CHECKS,
    now: () => number = Date.now,
  ) {
    this.#read = read;
    this.#publish = publish;
    this.#maxSessions = maxSessions;
    this.#now = now;
  }

  /** Sessions waiting for their read or being read. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Publishes `fields` of lock `key` now, or after the expiry of that lock still waiting. */
  emit(key: string, fields: TransitionFields): void {
    const queue = this.#queues.get(key);
    if (queue) queue.push({ fields, ready: true });
    else this.#publish(fields);
  }

  /** The `expired` transition of lock `key`: published once `check`'s session is read (or at once when it cannot be). */
  expired(key: string, fields: TransitionFields, check: ExpiryCheck, nowMs: number): void {
    const { sessionId } = check;
    let pending = sessionId === null ? undefined : this.#pending.get(sessionId);
    if (sessionId !== null && !pending && this.#pending.size < this.#maxSessions) {
      pending = { checkAtMs: sessionCheckAtMs(check.endMs, nowMs), started: false, expiries: [] };
      this.#pending.set(sessionId, pending);
    }
    if (!pending) {
      // No session (the cause says unknown), or too many being read: no read.
      this.emit(key, { ...fields, ...expiryCause(check, "not-checked", nowMs) });
      return;
    }
    if (!pending.started)
      pending.checkAtMs = Math.max(pending.checkAtMs, sessionCheckAtMs(check.endMs, nowMs));
    const entry: Queued = { fields, ready: false };
    const queue = this.#queues.get(key);
    if (queue) queue.push(entry);
    else this.#queues.set(key, [entry]);
    pending.expiries.push({ key, check, entry });
  }

  /** Starts the reads due by `nowMs` (called on every timeline tick). */
  tick(nowMs: number): void {
    for (const [sessionId, pending] of this.#pending) {
      if (pending.started || pending.checkAtMs > nowMs) continue;
      pending.started = true;
      void this.#read(sessionId)
        .catch((): readonly SessionReading[] => [])
        .then((readings) => this.#settle(sessionId, pending, readings));
    }
  }

  #settle(sessionId: string, pending: PendingRead, readings: readonly SessionReading[]): void {
    this.#pending.delete(sessionId);
    const checkedAtMs = this.#now();
    for (const { check, entry } of pending.expiries) {
      entry.fields = { ...entry.fields, ...expiryCause(check, readings, checkedAtMs) };
      entry.ready = true;
    }
    for (const key of new Set(pending.expiries.map((expiry) => expiry.key))) this.#flush(key);
  }

  #flush(key: string): void {
    const queue = this.#queues.get(key);
    if (!queue) return;
    while (queue[0]?.ready) this.#publish(queue.shift()!.fields);
    if (queue.length === 0) this.#queues.delete(key);
  }
}
