/**
 * The holder-session reads behind `expired` transitions, and each lock's order while one is
 * pending. An expired hold whose value names a session is held back until that session is read,
 * SESSION_CHECK_DELAY_MS after the expiry (expiry-cause.ts says why); so are the lock's later
 * transitions, so that its history stays in order. Other locks go on, and so does the fold: only
 * emission waits. Bounded: holds of one session that run out while its read waits join that read
 * (a crashed process's locks: one read); at most `maxSessions` reads waiting or in flight (beyond,
 * the cause is "not-checked"); each read bounded by the node deadline (the reader's). A joined hold
 * whose own check time had not come when the session read alive is read again later (it may have
 * stopped since); gone, unresponsive and unknown hold for it as they are. Each read is started by
 * one expiry and an expiry starts at most one, so reads never outnumber expired holds: the
 * console's cost follows lock traffic. No Redis here: the reader is given.
 */
import type { Transition } from "@/lib/api";
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

interface Expiry {
  readonly key: string;
  readonly check: ExpiryCheck;
  /** When its session could first be read (sessionCheckAtMs). */
  readonly checkAtMs: number;
  readonly entry: Queued;
}

interface PendingRead {
  /** When the read starts: the first joined expiry's check time, never put off by later ones. */
  readonly checkAtMs: number;
  readonly expiries: Expiry[];
}

export class SessionChecks {
  readonly #read: SessionReader;
  readonly #publish: (fields: TransitionFields) => void;
  readonly #maxSessions: number;
  readonly #now: () => number;
  /** Reads not started yet, by session: a later expiry of the session joins its read. */
  readonly #waiting = new Map<string, PendingRead>();
  #inFlight = 0;
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

  /** Reads waiting or in flight. */
  get pending(): number {
    return this.#waiting.size + this.#inFlight;
  }

  /** Publishes `fields` of lock `key` now, or after the expiry of that lock still waiting. */
  emit(key: string, fields: TransitionFields): void {
    const queue = this.#queues.get(key);
    if (queue) queue.push({ fields, ready: true });
    else this.#publish(fields);
  }

  /** The `expired` transition of lock `key`: published once `check`'s session is read (or at once when it cannot be). */
  expired(key: string, fields: TransitionFields, check: ExpiryCheck, nowMs: number): void {
    const entry: Queued = { fields, ready: false };
    const expiry = { key, check, checkAtMs: sessionCheckAtMs(check.endMs, nowMs), entry };
    if (!this.#wait(expiry)) {
      // No session (the cause says unknown), or too many reads: none.
      this.emit(key, { ...fields, ...expiryCause(check, "not-checked", nowMs) });
      return;
    }
    const queue = this.#queues.get(key);
    if (queue) queue.push(entry);
    else this.#queues.set(key, [entry]);
  }

  /** Starts the reads due by `nowMs` (called on every timeline tick). */
  tick(nowMs: number): void {
    for (const [sessionId, pending] of this.#waiting) {
      if (pending.checkAtMs > nowMs) continue;
      this.#waiting.delete(sessionId);
      this.#inFlight += 1;
      void this.#read(sessionId)
        .catch((): readonly SessionReading[] => [])
        .then((readings) => this.#settle(pending, readings));
    }
  }

  /** Joins `expiry` to its session's waiting read, or starts one; false when it cannot. */
  #wait(expiry: Expiry): boolean {
    const { sessionId } = expiry.check;
    if (sessionId === null) return false;
    let pending = this.#waiting.get(sessionId);
    if (!pending) {
      if (this.pending >= this.#maxSessions) return false;
      pending = { checkAtMs: expiry.checkAtMs, expiries: [] };
      this.#waiting.set(sessionId, pending);
    }
    pending.expiries.push(expiry);
    return true;
  }

  #settle(pending: PendingRead, readings: readonly SessionReading[]): void {
    this.#inFlight -= 1;
    const checkedAtMs = this.#now();
    const keys = new Set<string>();
    for (const expiry of pending.expiries) {
      const found = expiryCause(expiry.check, readings, checkedAtMs);
      // Read alive before a stopped holder's heartbeat could be late: again, when it can.
      if (found.cause.session === "alive" && expiry.checkAtMs > checkedAtMs && this.#wait(expiry))
        continue;
      expiry.entry.fields = { ...expiry.entry.fields, ...found };
      expiry.entry.ready = true;
      keys.add(expiry.key);
    }
    for (const key of keys) this.#flush(key);
  }

  #flush(key: string): void {
    const queue = this.#queues.get(key);
    if (!queue) return;
    while (queue[0]?.ready) this.#publish(queue.shift()!.fields);
    if (queue.length === 0) this.#queues.delete(key);
  }
}
