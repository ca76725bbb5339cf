import type { LockForceReleasedError, LockRevokedError } from "./errors";
import type { Lock } from "./lock";
import type { Revoke } from "./marks";

/** What `using()` does when the console acts on its lock (using.ts). */
export interface LockWatcher {
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
  /** Order of the acquire among the session's acquires and waits (Holdings.sequence). */
  readonly acquiredSeq: number;
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
    startedSeq: number;
  }>();
  /** Orders acquires and waits: a wait that started after a lock was acquired has a larger number. */
  private sequence = 0;

  constructor(
    private readonly emit: <E extends keyof HoldingEvents>(
      event: E,
      payload: HoldingEvents[E],
    ) => void,
  ) {}

  /** A lock was acquired. */
  acquired(lock: Lock): void {
    this.byValue.set(lock.value, { lock, acquiredSeq: (this.sequence += 1) });
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

  forceReleased(holding: Holding, error: LockForceReleasedError): void {
    if (holding.forced) return;
    holding.forced = error;
    if (holding.watcher) holding.watcher.forceReleased(error);
    else this.emit("lockLost", { lock: holding.lock, error });
  }

  revoked(holding: Holding, revoke: Revoke): void {
    const { error } = revoke;
    if (holding.revokes?.get(error.resource)?.error.auditId === error.auditId) return;
    (holding.revokes ??= new Map()).set(error.resource, revoke);
    // Cancelled: the waits for the revoked resource, and those that began while this session held
    // the revoked lock. A routine that holds A and waits for B is how a deadlock cycle looks from
    // inside; revoking A is how the console breaks it, and the wait for B must end too, or the
    // routine never settles and A stays held until the deadline.
    for (const wait of this.waits)
      if (wait.resources.includes(error.resource) || wait.startedSeq > holding.acquiredSeq)
        wait.cancel.abort(error);
    if (holding.watcher) holding.watcher.revoked(error);
    else this.emit("lockRevoked", { lock: holding.lock, error });
  }

  /** An acquire of `resources` is waiting to retry. */
  waiting(resources: readonly string[]): PendingAcquire {
    const wait = { resources, cancel: new AbortController(), startedSeq: (this.sequence += 1) };
    this.waits.add(wait);
    return { signal: wait.cancel.signal, leave: () => this.waits.delete(wait) };
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
