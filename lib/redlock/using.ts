import { LockExpiredError, RedlockError } from "./errors";
import type { Holdings } from "./holdings";
import type { Lock } from "./lock";
import { newRoutine, runInside } from "./routine";
import type { CallSettings, Settings } from "./settings";
import type { RedlockAbortSignal } from "./types";

/** The Redlock operations `using` drives (an interface, so this file does not import redlock.ts). */
export interface LockOperations {
  readonly settings: Settings;
  acquire(resources: string[], duration: number, settings?: CallSettings): Promise<Lock>;
  extend(lock: Lock, duration: number, settings?: CallSettings): Promise<Lock>;
}

/**
 * Runs `routine` while holding the lock, extending it before its validity drops below
 * `automaticExtensionThreshold`. If an extension fails, the routine's signal aborts with the error:
 * exclusivity is no longer guaranteed. An external `settings.signal` cancels a pending acquire and
 * aborts a running routine's signal. The lock is released when the routine settles.
 *
 * With a session (`holdings`), the console reaches the routine: a force-release aborts the signal
 * with LockForceReleasedError and stops the extensions (they could only fail); a revoke aborts it
 * with LockRevokedError, and the lock is still extended until the routine settles or the revoke's
 * deadline passes. Either way the release when the routine settles is the acknowledgement the
 * console waits for (release.ts deletes the lock's tombstone too).
 */
export async function using<T>(
  redlock: LockOperations,
  resources: string[],
  durationMs: number,
  settings: CallSettings,
  routine: (signal: RedlockAbortSignal) => Promise<T>,
  holdings?: Pick<Holdings, "watch">,
): Promise<T> {
  const thresholdMs =
    settings.automaticExtensionThreshold ?? redlock.settings.automaticExtensionThreshold;
  if (durationMs < thresholdMs + 100) {
    throw new Error(
      "A lock `duration` must be at least 100ms greater than the `automaticExtensionThreshold` setting.",
    );
  }
  const controller = new AbortController();
  const signal = controller.signal as RedlockAbortSignal;
  const abort = (error: Error) => {
    if (signal.aborted) return;
    signal.error = error;
    controller.abort(error);
  };
  let lock: Lock = await redlock.acquire(resources, durationMs, settings);
  const onExternalAbort = () =>
    abort(
      settings.signal?.reason instanceof Error
        ? settings.signal.reason
        : new RedlockError("Aborted by the caller.", { cause: settings.signal?.reason }),
    );
  settings.signal?.addEventListener("abort", onExternalAbort, { once: true });

  let timer: NodeJS.Timeout | undefined;
  // The library promises nothing past a lock's validity, so the signal aborts when it ends, even
  // while an extension still retries (its pauses between attempts are not cut at the expiration, and
  // a console's tombstone outlives the validity only by the drift).
  let validityTimer: NodeJS.Timeout | undefined;
  const watchValidity = () => {
    clearTimeout(validityTimer);
    const { expiration } = lock;
    validityTimer = setTimeout(
      () => abort(new LockExpiredError(lock.resources, expiration)),
      Math.max(0, expiration - Date.now()),
    );
  };
  watchValidity();
  // An extension in flight when the routine settles must not re-arm the timer: clearTimeout in
  // `finally` cannot reach a timer set after it, which would extend a released lock indefinitely.
  let settled = false;
  let forceReleased = false;
  /** Set by a revoke: no extension after it. */
  let revokeDeadlineAt = Infinity;
  // The acquires begun inside the routine are its own: a revoke of this lock cancels their waits.
  const scope = newRoutine();
  holdings?.watch(lock, {
    routine: scope,
    forceReleased: (error) => {
      forceReleased = true;
      clearTimeout(timer);
      abort(error);
    },
    revoked: (error) => {
      revokeDeadlineAt = Math.min(revokeDeadlineAt, error.deadlineAt);
      abort(error);
    },
  });
  const scheduleExtension = () => {
    timer = setTimeout(
      async () => {
        if (forceReleased || Date.now() >= revokeDeadlineAt) return;
        try {
          // The caller's settings (nodeTimeout, retries…) apply to extensions too; its signal does not.
          lock = await redlock.extend(lock, durationMs, { ...settings, signal: undefined });
          if (settled) return;
          watchValidity();
          scheduleExtension();
        } catch (error) {
          abort(error instanceof Error ? error : new RedlockError(String(error), { cause: error }));
        }
      },
      Math.max(0, lock.expiration - Date.now() - thresholdMs),
    );
  };
  scheduleExtension();
  try {
    return await runInside(scope, () => routine(signal));
  } finally {
    settled = true;
    clearTimeout(timer);
    clearTimeout(validityTimer);
    settings.signal?.removeEventListener("abort", onExternalAbort);
    await lock.release().catch(() => undefined);
  }
}
