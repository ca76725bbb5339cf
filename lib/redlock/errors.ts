import type { ExecutionStats } from "./types";

/** Base of every error this library throws, so callers can tell ours apart with one check. */
export class RedlockError extends Error {
  override name = "RedlockError";
}

/** A node refused the operation because a resource is held by another value (node-redlock name). */
export class ResourceLockedError extends RedlockError {
  override name = "ResourceLockedError";
}

/**
 * The operation did not reach a quorum within its retry window (node-redlock name and message).
 * `attempts` resolves to the votes of each attempt: which nodes said yes, which said no and why.
 */
export class ExecutionError extends RedlockError {
  override name = "ExecutionError";
  constructor(
    message: string,
    readonly attempts: ReadonlyArray<Promise<ExecutionStats>>,
    /**
     * Nodes whose vote the last attempt withheld because they restarted recently (restart
     * quarantine), and until when: context kept out of the message, which is node-redlock's.
     */
    readonly quarantined: ReadonlyArray<{ address: string; quarantinedUntil: number }> = [],
  ) {
    super(message);
  }
}

/** A node did not answer within `nodeTimeout`; it counts as a vote against. */
export class NodeTimeoutError extends RedlockError {
  override name = "NodeTimeoutError";
  constructor(
    /** `host:port` of the node (never a password). */
    readonly address: string,
    /** The deadline it missed, in ms. */
    readonly timeoutMs: number,
  ) {
    super(`Node ${address} did not answer within ${Math.round(timeoutMs)} ms.`);
  }
}

/**
 * A node restarted less than `restartQuarantine` ago and may have lost keys in the crash,
 * so its vote is withheld until `quarantinedUntil` (epoch ms).
 */
export class NodeQuarantinedError extends RedlockError {
  override name = "NodeQuarantinedError";
  constructor(
    readonly address: string,
    readonly quarantinedUntil: number,
  ) {
    super(
      `Node ${address} restarted recently and is quarantined until ${new Date(quarantinedUntil).toISOString()}.`,
    );
  }
}

/**
 * A node is known to be unreachable, stalled or possibly restarted, so no command was sent to it
 * (avoids unbounded queues) or its answer does not count. `cause` is the error behind it, if any.
 */
export class NodeUnavailableError extends RedlockError {
  override name = "NodeUnavailableError";
  constructor(
    /** `host:port` of the node (never a password). */
    readonly address: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Who acted on a lock from the console, and why (the console's audit entry). */
export interface ConsoleAction {
  /** The resource the console acted on. */
  readonly resource: string;
  /** The console's audit entry for the action. */
  readonly auditId: string;
  /** Who acted (the console user). */
  readonly by: string;
  /** Why, as the operator wrote it. */
  readonly reason: string;
}

/**
 * An operator force-released this lock in the console: its keys now hold the console's tombstone,
 * so nobody else acquires the resource until this process lets go (its `using()` routine settles,
 * or it calls `release()`) or the lock's last validity ends. Extensions no longer succeed.
 */
export class LockForceReleasedError extends RedlockError implements ConsoleAction {
  override name = "LockForceReleasedError";
  readonly resource: string;
  readonly auditId: string;
  readonly by: string;
  readonly reason: string;

  constructor(action: ConsoleAction) {
    // `by` is empty when the lock was found lost without the console's tombstone (marks.ts readLoss).
    const by = action.by ? ` by ${action.by}` : "";
    super(
      `The lock on "${action.resource}" was force-released${by} (audit ${action.auditId}): ${action.reason}`,
    );
    ({ resource: this.resource, auditId: this.auditId, by: this.by, reason: this.reason } = action);
  }
}

/**
 * An operator asked, in the console, that this process let go of the lock by `deadlineAt` (epoch
 * ms). The lock is still held: `using()` keeps extending it until its routine settles or the
 * deadline passes, then releases it as usual; past the deadline the operator may force it.
 */
export class LockRevokedError extends RedlockError implements ConsoleAction {
  override name = "LockRevokedError";
  readonly resource: string;
  readonly auditId: string;
  readonly by: string;
  readonly reason: string;
  readonly deadlineAt: number;

  constructor(action: ConsoleAction & { readonly deadlineAt: number }) {
    super(
      `${action.by} asked to release the lock on "${action.resource}" by ${new Date(action.deadlineAt).toISOString()} (audit ${action.auditId}): ${action.reason}`,
    );
    ({ resource: this.resource, auditId: this.auditId, by: this.by, reason: this.reason } = action);
    this.deadlineAt = action.deadlineAt;
  }
}

/**
 * A `using()` routine's lock reached the end of its validity before an extension succeeded (the
 * extension may still be retrying: a majority is unreachable, or the lock was taken from it). From
 * then on the library guarantees nothing: another process may acquire the resource, so the signal
 * aborts at the validity's end, not after the last retry.
 */
export class LockExpiredError extends RedlockError {
  override name = "LockExpiredError";
  constructor(
    readonly resources: readonly string[],
    /** Epoch ms at which the validity ended (the lock's `expiration`). */
    readonly expiredAt: number,
  ) {
    super(
      `The lock on "${resources.join('", "')}" reached the end of its validity at ${new Date(expiredAt).toISOString()} before an extension succeeded: another process may hold it now.`,
    );
  }
}

const REDLOCK_ERROR_NAMES = new Set([
  "LockExpiredError",
  "RedlockError",
  "ResourceLockedError",
  "ExecutionError",
  "NodeTimeoutError",
  "NodeQuarantinedError",
  "NodeUnavailableError",
  "LockForceReleasedError",
  "LockRevokedError",
]);

/**
 * The guards match by class, or by name for an error from another copy of this module (an app
 * whose bundler loads the library twice, e.g. Next.js's instrumentation bundle beside its routes),
 * where `instanceof` is false.
 */
const named = (error: unknown, name: string): error is Error =>
  error instanceof Error && error.name === name;

/**
 * A semaphore or read-write lock whose shape (permit count, reader slots) this client gives
 * differently from what the masters record for it: k permit locks are at most k holders only if
 * every client agrees on k (docs/safety.md). Names both numbers.
 */
export class ShapeMismatchError extends RedlockError {
  override name = "ShapeMismatchError";
  constructor(
    /** The semaphore's or read-write lock's name. */
    readonly subject: string,
    /** What this client asked for. */
    readonly expected: number,
    /** What a majority of the masters record. */
    readonly recorded: number,
    what: string,
  ) {
    super(
      `"${subject}" has ${recorded} ${what} recorded on the masters, but this client asked for ${expected}: every client of one name must give the same number (release every holder, or wait for their locks to expire, to change it).`,
    );
  }
}

export const isRedlockError = (error: unknown): error is RedlockError =>
  error instanceof RedlockError || (error instanceof Error && REDLOCK_ERROR_NAMES.has(error.name));
export const isExecutionError = (error: unknown): error is ExecutionError =>
  error instanceof ExecutionError || (named(error, "ExecutionError") && "attempts" in error);
export const isResourceLockedError = (error: unknown): error is ResourceLockedError =>
  error instanceof ResourceLockedError || named(error, "ResourceLockedError");
export const isLockExpiredError = (error: unknown): error is LockExpiredError =>
  error instanceof LockExpiredError || (named(error, "LockExpiredError") && "expiredAt" in error);
export const isLockForceReleasedError = (error: unknown): error is LockForceReleasedError =>
  error instanceof LockForceReleasedError ||
  (named(error, "LockForceReleasedError") && "auditId" in error);
export const isLockRevokedError = (error: unknown): error is LockRevokedError =>
  error instanceof LockRevokedError || (named(error, "LockRevokedError") && "deadlineAt" in error);
