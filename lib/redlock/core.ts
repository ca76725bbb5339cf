import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { ExecutionError, NodeQuarantinedError } from "./errors";
import type { ReleaseWaiter } from "./handoff";
import type { PendingAcquire } from "./holdings";
import type { RedlockNode } from "./node";
import type { Attempt } from "./quorum";
import { retryWaitMs, type Settings } from "./settings";
import type { ExecutionStats, OperationEvent } from "./types";

/** What the operation files need from the Redlock instance. */
export interface Core {
  readonly nodes: readonly RedlockNode[];
  emitOperation(event: OperationEvent): void;
  /**
   * Emits `"error"` for every vote against of an attempt, ResourceLockedError included, as
   * node-redlock does; a no-op when nobody listens.
   */
  emitVoteErrors(stats: ExecutionStats): void;
  /** False when nobody listens to "operation" or "error": the event need not be built. */
  wantsEvents(): boolean;
  /** Wakes a waiting acquire when its resources are released (handoff.ts); unset: plain sleeps. */
  readonly releaseWaiter?: ReleaseWaiter;
  /** The instance's holder session (session.ts); unset with `session: false`. */
  readonly session?: {
    readonly id: string;
    /** An acquire of `resources` waits to retry: a revoke of one of them cancels it. */
    waiting(resources: readonly string[]): PendingAcquire;
  };
}

const retryFailedMessage = "The operation was unable to achieve a quorum during its retry window.";

/** The quarantined nodes among the last attempt's votes against (ExecutionError.quarantined). */
function quarantinedIn(last: Attempt | undefined): ExecutionError["quarantined"] {
  return (last?.answers ?? []).flatMap((answer) =>
    answer?.vote === "against" && answer.error instanceof NodeQuarantinedError
      ? [{ address: answer.error.address, quarantinedUntil: answer.error.quarantinedUntil }]
      : [],
  );
}

export interface RetryStep<T> {
  readonly attempt: Attempt;
  /** The operation's result when this attempt succeeded. */
  readonly result?: T;
  /** False when retrying cannot help (e.g. the lock is gone). */
  readonly retryable?: boolean;
}

/**
 * Runs attempts until one succeeds, retries are exhausted or `signal` aborts, waiting
 * `retryDelay ± retryJitter` between them (a handoff may try sooner: see retryDueMs). Reports the
 * outcome as one "operation" event.
 */
export async function withRetries<T>(
  core: Core,
  event: Pick<OperationEvent, "operation" | "resources">,
  settings: Settings,
  signal: AbortSignal | undefined,
  step: () => Promise<RetryStep<T>>,
  /**
   * Waits between attempts; resolves true when a handoff cut the wait short (an acquire's wait
   * woken, or settling after a wake). Default: sleep.
   */
  pause: (delayMs: number, signal?: AbortSignal) => Promise<unknown> = (delayMs, signal) =>
    sleep(delayMs, undefined, { signal }),
): Promise<{ result: T; attempts: Promise<ExecutionStats>[] }> {
  const startMono = performance.now();
  const attempts: Promise<ExecutionStats>[] = [];
  let last: Attempt | undefined;
  const report = (outcome: OperationEvent["outcome"]) => {
    if (!core.wantsEvents()) return;
    const latencyMs = performance.now() - startMono;
    const count = attempts.length;
    void last?.stats.then((stats) =>
      core.emitOperation({ ...event, outcome, attempts: count, latencyMs, nodes: stats.nodes }),
    );
  };
  let retries = 0;
  // When the retry under way is due, and whether the pause before this attempt was cut short (a
  // handoff woke the wait, or it settles after a wake). Such an attempt, made before its retry was
  // due, spends no retry if it fails: a wake that comes a hair early (the release's deletes still
  // landing on the other nodes) never makes a caller give up sooner than retryCount × retryDelay,
  // as it did with `retryCount: 1`. The pauses keep their length, so contention keeps its pace;
  // attempts may outnumber retries.
  let retryDueMs = 0;
  let cutShort = false;
  for (;;) {
    signal?.throwIfAborted();
    const { attempt, result, retryable = true } = await step();
    last = attempt;
    attempts.push(attempt.stats);
    void attempt.stats.then(core.emitVoteErrors);
    if (result !== undefined) {
      report("success");
      return { result, attempts };
    }
    if (!retryable) break;
    const waitMs = retryWaitMs(settings);
    const nowMs = performance.now();
    if (!cutShort || nowMs >= retryDueMs) {
      if (settings.retryCount !== -1 && retries >= settings.retryCount) break;
      retries += 1;
      retryDueMs = nowMs + waitMs;
    }
    cutShort = (await pause(waitMs, signal)) === true;
  }
  report("failure");
  throw new ExecutionError(retryFailedMessage, attempts, quarantinedIn(last));
}
