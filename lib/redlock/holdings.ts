import type { LockForceReleasedError, LockRevokedError } from "./errors";
import type { Lock } from "./lock";
import type { Revoke } from "./marks";
import { currentRoutine, isWithin, type RoutineScope } from "./routine";

/** What `using()` does when the console acts on its lock (using.ts). */
export interface LockWatcher {
  /** The routine's async context: the acquires begun inside it are its waits. */
  readonly routine: RoutineScope;
  forceReleased(error: LockForceReleasedError): void;
  revoked(error: LockRevokedError): void;
}

/** `"lockLost"`: the console force-released a lock this instance holds without `using()`. */
export interface LockLostEvent {
  readonly lock: Lock;
  readonly error: LockForceReleasedError;
}

/** `"lockRevoked"`: the console asks that a lock held without `using()` be released. */
export interface LockRevokedEvent {
  readonly lock: Lock;
  readonly error: LockRevokedError;
}

export type HoldingEvents = {
  lockLost: LockLostEvent;
  lockRevoked: LockRevokedEvent;
};

/** One lock of the session, from its acquire to its release. */
export interface Holding {
  /** The latest handle (an extension returns a new one with the same value). */
  lock: Lock;
  watcher?: LockWatcher;
  /** Set once a majority showed its tombstone. */
  forced?: LockForceReleasedError;
  /** Revokes confirmed, by resource, to record the release in their markers. */
  revokes?: Map<string, Revoke>;
}

/** An acquire of the session waiting to retry, which a revoke of its resources cancels. */
export interface PendingAcquire {
  /** Aborts with the LockRevokedError when a revoke cancels the wait. */
  readonly signal: AbortSignal;
  leave(): void;
}

/**
 * The locks a session holds and the acquires it has waiting, so that a confirmed console mark
 * reaches the right one: a `using()` routine through its watcher, any other holder through an event
 * on the Redlock instance. In memory only: no command on the acquire or release path.
 */
export class Holdings {
  private readonly byValue = new Map<string, Holding>();
  private readonly waits = new Set<{
    resources: readonly string[];
    cancel: AbortController;
    /** The using() routine the acquire was begun inside, if any. */
    routine: RoutineScope | undefined;
  }>();
  /** Routines whose lock was revoked: a wait they begin afterwards is cancelled as it begins. */
  private readonly revokedRoutines = new WeakMap<RoutineScope, LockRevokedError>();

  constructor(
    private readonly emit: <E extends keyof HoldingEvents>(
      event: E,
      payload: HoldingEvents[E],
    ) => void,
  ) {}

  /** A lock was acquired. */
  acquired(lock: Lock): void {
    this.byValue.set(lock.value, { lock });
  }

  /** A lock was extended: its new handle, if the lock is one of ours. */
  extended(lock: Lock): void {
    const holding = this.byValue.get(lock.value);
    if (holding) holding.lock = lock;
  }

  /** A lock is being released: forgets it, and returns the revokes whose markers should say so. */
  released(value: string): ReadonlyMap<string, Revoke> | undefined {
    const holding = this.byValue.get(value);
    this.byValue.delete(value);
    return holding?.revokes;
  }

  get(value: string): Holding | undefined {
    return this.byValue.get(value);
  }

  /** `using()` takes over what happens to its lock. */
  watch(lock: Lock, watcher: LockWatcher): void {
    const holding = this.byValue.get(lock.value);
    if (holding) holding.watcher = watcher;
  }

  /** The session's locks on `resource` not yet known force-released. */
  on(resource: string): Holding[] {
    const found: Holding[] = [];
    for (const holding of this.byValue.values())
      if (!holding.forced && holding.lock.resources.includes(resource)) found.push(holding);
    return found;
  }

  /** Tells the holder, once; returns the force-release it was told. */
  forceReleased(holding: Holding, error: LockForceReleasedError): LockForceReleasedError {
    if (holding.forced) return holding.forced;
    holding.forced = error;
    if (holding.watcher) holding.watcher.forceReleased(error);
    else this.emit("lockLost", { lock: holding.lock, error });
    return error;
  }

  revoked(holding: Holding, revoke: Revoke): void {
    const { error } = revoke;
    if (holding.revokes?.get(error.resource)?.error.auditId === error.auditId) return;
    (holding.revokes ??= new Map()).set(error.resource, revoke);
    // Cancelled: the waits for the revoked resource, and those begun inside the revoked using()
    // routine (its async context, nested routines included). A routine that holds A and waits for
    // B is how a deadlock cycle looks from inside; revoking A is how the console breaks it, and the
    // wait for B must end too, or the routine never settles and A stays held until the deadline.
    // No other wait of the process: it does not hold A.
    const routine = holding.watcher?.routine;
    // A wait the routine begins after the notice (its first attempt failed only now) is one too.
    if (routine) this.revokedRoutines.set(routine, error);
    for (const wait of this.waits)
      if (wait.resources.includes(error.resource) || (routine && isWithin(wait.routine, routine)))
        wait.cancel.abort(error);
    if (holding.watcher) holding.watcher.revoked(error);
    else this.emit("lockRevoked", { lock: holding.lock, error });
  }

  /** An acquire of `resources` is waiting to retry (called inside the acquire's async context). */
  waiting(resources: readonly string[]): PendingAcquire {
    const wait = { resources, cancel: new AbortController(), routine: currentRoutine() };
    const revoked = this.revokedAround(wait.routine);
    if (revoked) wait.cancel.abort(revoked);
    this.waits.add(wait);
    return { signal: wait.cancel.signal, leave: () => this.waits.delete(wait) };
  }

  /** The revoke of `scope` or of a routine it runs inside, if any. */
  private revokedAround(scope: RoutineScope | undefined): LockRevokedError | undefined {
    for (let inside = scope; inside; inside = inside.parent) {
      const revoked = this.revokedRoutines.get(inside);
      if (revoked) return revoked;
    }
    return undefined;
  }

  /**
   * Forgets the locks held without `using()` whose validity ended (never released: nothing could
   * be ours there any more). Run at each heartbeat.
   */
  sweep(nowMs: number): void {
    for (const [value, holding] of this.byValue)
      if (!holding.watcher && holding.lock.expiration < nowMs) this.byValue.delete(value);
  }
}
