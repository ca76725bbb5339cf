/**
 * Messages between the torture test (parent) and its worker processes, over the fork IPC channel.
 * Every time is epoch ms from `Date.now()`: all processes run on one machine and read the same
 * system clock, and `lock.expiration` is on that clock too.
 */

export interface WorkerConfig {
  readonly workerId: number;
  readonly nodeUrls: string[];
  readonly storeUrl: string;
  readonly resources: string[];
  readonly ttlMs: number;
  readonly restartQuarantineMs: number | false;
  /** Seed of the worker's random choices, so a run can be replayed. */
  readonly seed: number;
}

/** One successful acquire. The holder's window is [acquiredAt, min(last expiration, release)]. */
export interface HeldEvent {
  readonly type: "held";
  readonly workerId: number;
  readonly value: string;
  readonly resources: string[];
  readonly token: number | undefined;
  readonly ttlMs: number;
  /** Read right after `acquire` resolved: the holder cannot act on the lock earlier. */
  readonly acquiredAt: number;
  readonly expiration: number;
}

export interface ExtendedEvent {
  readonly type: "extended";
  readonly value: string;
  readonly expiration: number;
}

/** Sent just before `release`: the holder stops acting on the lock here. */
export interface ReleasingEvent {
  readonly type: "releasing";
  readonly value: string;
  readonly at: number;
}

/** One write to the fenced store, with the store's verdict. */
export interface WriteEvent {
  readonly type: "write";
  readonly value: string;
  readonly resource: string;
  readonly token: number;
  readonly sentAt: number;
  readonly doneAt: number;
  readonly accepted: boolean;
}

export type WorkerMessage =
  | { readonly type: "ready"; readonly workerId: number }
  | HeldEvent
  | ExtendedEvent
  | ReleasingEvent
  | WriteEvent
  | { readonly type: "cycle"; readonly workerId: number }
  | { readonly type: "acquire-failed"; readonly workerId: number; readonly message: string }
  | { readonly type: "done"; readonly workerId: number };

export type ParentMessage =
  | { readonly type: "start"; readonly config: WorkerConfig }
  /** Overrun the TTL in the next critical section, as a holder stuck in a long GC pause would. */
  | { readonly type: "overrun"; readonly byMs: number }
  | { readonly type: "stop" };
