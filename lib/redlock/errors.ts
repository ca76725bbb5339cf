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

const REDLOCK_ERROR_NAMES = new Set([
  "RedlockError",
  "ResourceLockedError",
  "ExecutionError",
  "NodeTimeoutError",
  "NodeQuarantinedError",
  "NodeUnavailableError",
]);

/**
 * The guards match by class, or by name for an error from another copy of this module (an app
 * whose bundler loads the library twice, e.g. Next.js's instrumentation bundle beside its routes),
 * where `instanceof` is false.
 */
const named = (error: unknown, name: string): error is Error =>
  error instanceof Error && error.name === name;

export const isRedlockError = (error: unknown): error is RedlockError =>
  error instanceof RedlockError || (error instanceof Error && REDLOCK_ERROR_NAMES.has(error.name));
export const isExecutionError = (error: unknown): error is ExecutionError =>
  error instanceof ExecutionError || (named(error, "ExecutionError") && "attempts" in error);
export const isResourceLockedError = (error: unknown): error is ResourceLockedError =>
  error instanceof ResourceLockedError || named(error, "ResourceLockedError");
