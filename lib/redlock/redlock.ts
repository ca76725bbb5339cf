/**
 * Over 300 lines, one job: the public Redlock class, node-redlock's surface plus ours (sessions,
 * semaphores, read-write locks); each operation's work is in its own module, imported below.
 */
import { EventEmitter } from "node:events";
import { ACQUIRE, ACQUIRE_ONE, acquire, type Guarded } from "./acquire";
import { guardOf, setGuard } from "./guard";
import { registerInternals } from "./internals";
import { ReadWriteLock } from "./read-write-lock";
import { Semaphore } from "./semaphore";
import type { Core } from "./core";
import { EXTEND, extend } from "./extend";
import { ReleaseWaiter } from "./handoff";
import { inspect } from "./inspect";
import { assertOneSlot } from "./keys";
import { Lock, type LockManager } from "./lock";
import { defineBatchScript } from "./batch";
import { FENCE } from "./fencing";
import { RedlockNode } from "./node";
import { recordRevokedRelease } from "./marks";
import { RELEASE, RELEASE_ONE, release } from "./release";
import { HolderSession, type SessionInfo } from "./session";
import {
  assertResources,
  assertTtl,
  defaultSettings,
  resolveSettings,
  type CallSettings,
  type Settings,
} from "./settings";
import { loadTracer, startOperationSpan, type OperationSpan } from "./telemetry";
import type {
  Client,
  ExecutionStats,
  NodeState,
  Operation,
  OperationEvent,
  RedlockAbortSignal,
  ReleaseResult,
  ResourceInspection,
} from "./types";
import { using, type LockOperations } from "./using";

/** The lock operations a node may batch into one script call under concurrency (node.ts). */
export const LOCK_BATCH_SCRIPT = defineBatchScript([
  ACQUIRE,
  ACQUIRE_ONE,
  EXTEND,
  RELEASE,
  RELEASE_ONE,
  FENCE,
]);

/**
 * The Redlock algorithm on independent Redis masters, with node-redlock v5's API.
 * Emits `"error"` for each vote against of every attempt (ResourceLockedError included, only when
 * listened to, as node-redlock) and `"operation"`
 * (an OperationEvent) after every acquire, extend and release. With a session, also `"lockLost"`
 * (a LockLostEvent: the console force-released a lock held without `using()`) and `"lockRevoked"`
 * (a LockRevokedEvent: the console asks for such a lock back; release it to answer).
 */
export default class Redlock extends EventEmitter implements LockManager, LockOperations {
  readonly clients: Set<Client>;
  readonly settings: Settings;
  private readonly core: Core;
  /** Unset with `session: false`. */
  private readonly holder: HolderSession | undefined;
  /** Set only when @opentelemetry/api is installed. */
  private readonly tracer = loadTracer();

  constructor(clients: Iterable<Client>, settings: Partial<Settings> = {}) {
    super();
    this.clients = new Set(clients);
    if (this.clients.size === 0)
      throw new Error("Redlock must be instantiated with at least one redis client.");
    this.settings = resolveSettings(defaultSettings, settings);
    const nodes = [...this.clients].map(
      (client, index) =>
        new RedlockNode(client, index, this.settings.restartQuarantine, LOCK_BATCH_SCRIPT),
    );
    // A bare-token value (`owner: false`) cannot carry the session's id: no session either.
    this.holder =
      this.settings.session === false || this.settings.owner === false
        ? undefined
        : new HolderSession(nodes, this.settings, (event, payload) => this.emit(event, payload));
    this.core = {
      nodes,
      releaseWaiter: new ReleaseWaiter(nodes),
      session: this.holder,
      wantsEvents: () => this.listenerCount("operation") > 0 || this.listenerCount("error") > 0,
      emitOperation: (event: OperationEvent) => {
        this.emit("operation", event);
      },
      emitVoteErrors: (stats: ExecutionStats) => {
        if (this.listenerCount("error") === 0) return;
        for (const error of stats.votesAgainst.values()) this.emit("error", error);
      },
    };
    registerInternals(this, {
      core: this.core,
      holdings: this.holder?.holdings,
      acquireGuarded: (resources, ttlMs, settings, guarded) =>
        this.acquireLock(resources, ttlMs, settings, guarded),
    });
  }

  /**
   * A counting semaphore of `permits` holders at most: each permit an ordinary lock on
   * `{name}#0` … `{name}#<permits-1>` (one Cluster slot). Every client must give the same count.
   */
  semaphore(name: string, permits: number): Semaphore {
    return new Semaphore(this, name, permits);
  }

  /** A read-write lock: readers share, a writer excludes everyone, a waiting writer stops new readers. */
  readWriteLock(name: string, options: { maxReaders?: number } = {}): ReadWriteLock {
    return new ReadWriteLock(this, name, options.maxReaders);
  }

  /** Acquires a lock on every resource (all or nothing) for `duration` ms. Throws ExecutionError on failure. */
  async acquire(resources: string[], duration: number, settings: CallSettings = {}): Promise<Lock> {
    assertResources(resources);
    assertTtl(duration);
    if (resources.length > 1 && this.core.nodes.some((node) => node.isCluster))
      assertOneSlot(resources);
    return this.acquireLock(resources, duration, settings);
  }

  /** acquire, or with `guarded` one of `resources` under a guard (a permit, a read-write mode). */
  private async acquireLock(
    resources: string[],
    duration: number,
    settings: CallSettings,
    guarded?: Guarded,
  ): Promise<Lock> {
    const resolved = resolveSettings(this.settings, settings);
    const span = this.startSpan("acquire", resources, duration);
    try {
      const acquiring = acquire(this.core, resources, duration, resolved, settings.signal, guarded);
      this.holder?.startBeside(acquiring);
      const acquired = await acquiring;
      span?.succeed(acquired.attempts);
      const lock = new Lock(
        this,
        [...acquired.resources],
        acquired.value,
        acquired.attempts,
        acquired.expiration,
        acquired.fencingToken,
        acquired.owner,
      );
      setGuard(lock, guarded?.guard);
      this.holder?.holdings.acquired(lock);
      return lock;
    } catch (error) {
      span?.fail(error);
      throw error;
    }
  }

  /** Deletes the lock on every node that still holds it. Resolves even if the lock had expired. */
  async release(lock: Lock, settings: Partial<Settings> = {}): Promise<ReleaseResult> {
    assertResources(lock.resources);
    const span = this.startSpan("release", lock.resources);
    const revokes = this.holder?.holdings.released(lock.value);
    const result = await release(
      this.core,
      lock.resources,
      lock.value,
      resolveSettings(this.settings, settings),
      guardOf(lock)?.queueKey,
    );
    if (revokes && !result.alreadyReleased)
      for (const [resource, revoke] of revokes)
        recordRevokedRelease(this.core.nodes, resource, revoke, Date.now());
    span?.succeed(
      result.attempts,
      result.settled.then((counts) => ({
        "redlock.released_count": counts.releasedCount,
        "redlock.failed_count": counts.failedCount,
      })),
    );
    return result;
  }

  /**
   * Extends a held lock to `duration` ms from now; returns the extended Lock. Throws ExecutionError
   * if lost; with a session, LockForceReleasedError when a majority holds the console's tombstone.
   */
  async extend(existing: Lock, duration: number, settings: CallSettings = {}): Promise<Lock> {
    assertTtl(duration);
    const resolved = resolveSettings(this.settings, settings);
    const span = this.startSpan("extend", existing.resources, duration);
    let extended: Awaited<ReturnType<typeof extend>>;
    try {
      const guard = guardOf(existing);
      extended = await extend(this.core, existing, duration, resolved, settings.signal, guard);
      span?.succeed(extended.attempts);
    } catch (error) {
      span?.fail(error);
      // The console may have taken it: its holder hears why (using()'s signal, or "lockLost"), and
      // so does the caller, a lock handed over from another process included.
      const forced = await this.holder?.notices.explainLoss(existing).catch(() => undefined);
      throw forced ?? error;
    }
    existing.expiration = 0; // node-redlock does the same: the old handle must not be extended again
    const lock = new Lock(
      this,
      existing.resources,
      existing.value,
      extended.attempts,
      extended.expiration,
      existing.fencingToken,
      existing.owner && { ...existing.owner, extensions: (existing.owner.extensions ?? 0) + 1 },
    );
    setGuard(lock, guardOf(existing));
    if (this.holder) {
      this.holder.holdings.extended(lock);
      if (extended.revoked)
        for (const resource of lock.resources)
          void this.holder.notices.check("revoke", resource).catch(() => undefined);
    }
    return lock;
  }

  /**
   * This instance's holder session: its id (in every lock value and waiter entry) and the labels its
   * heartbeat carries; undefined with `session: false`.
   */
  get session(): SessionInfo | undefined {
    return this.holder && { id: this.holder.id, labels: this.holder.labels };
  }

  /**
   * Reads the resources on every node without acquiring or writing: holder value, how many nodes
   * hold it, validity left, its owner entry (only where it belongs to that value) and the waiters.
   * One script call per node, each bounded by `nodeTimeout`; at most 1,000 resources per call.
   */
  async inspect(
    resources: string[],
    settings: Partial<Pick<Settings, "nodeTimeout">> = {},
  ): Promise<ResourceInspection[]> {
    assertResources(resources);
    return inspect(this.core, resources, resolveSettings(this.settings, settings));
  }

  using<T>(
    resources: string[],
    duration: number,
    settings: CallSettings,
    routine?: (signal: RedlockAbortSignal) => Promise<T>,
  ): Promise<T>;
  using<T>(
    resources: string[],
    duration: number,
    routine: (signal: RedlockAbortSignal) => Promise<T>,
  ): Promise<T>;
  async using<T>(
    resources: string[],
    duration: number,
    settingsOrRoutine: CallSettings | ((signal: RedlockAbortSignal) => Promise<T>),
    optionalRoutine?: (signal: RedlockAbortSignal) => Promise<T>,
  ): Promise<T> {
    const settings = typeof settingsOrRoutine === "function" ? {} : settingsOrRoutine;
    const routine = typeof settingsOrRoutine === "function" ? settingsOrRoutine : optionalRoutine;
    if (typeof routine !== "function")
      throw new TypeError(
        "using() needs a routine: an async function that receives an AbortSignal.",
      );
    assertTtl(duration);
    return using(this, resources, duration, settings, routine, this.holder?.holdings);
  }

  private startSpan(
    operation: Operation,
    resources: readonly string[],
    ttlMs?: number,
  ): OperationSpan | undefined {
    if (!this.tracer) return undefined;
    return startOperationSpan(this.tracer, operation, resources, this.core.nodes.length, ttlMs);
  }

  /**
   * A handle on a lock known only by its resources and value (taken by another process, or shown
   * by the console), to extend or release it. The nodes decide whether the value still holds it:
   * `extend` fails and `release` resolves `alreadyReleased` when it does not. Its expiration is
   * unknown, so `expiration` is Infinity until an extension returns a real one.
   */
  lockByValue(resources: string[], value: string): Lock {
    assertResources(resources);
    if (typeof value !== "string" || value.length === 0)
      throw new TypeError("A lock value must be a non-empty string.");
    return new Lock(this, [...resources], value, [], Number.POSITIVE_INFINITY);
  }

  /** What the library knows of each node: suspect (overdue commands), quarantine, uptime. */
  nodeStates(): NodeState[] {
    return this.core.nodes.map((node) => {
      const watch = node.restartWatch;
      const quarantinedUntil = watch.quarantinedUntil();
      const status = node.isSuspect
        ? "suspect"
        : quarantinedUntil !== undefined
          ? "quarantined"
          : watch.isUnknown
            ? "unknown"
            : "ok";
      return {
        index: node.index,
        address: node.address,
        status,
        quarantinedUntil,
        uptimeS: watch.uptimeS,
        runId: watch.runId,
      };
    });
  }

  /**
   * Closes every client connection (node-redlock's `quit`), and stops the session's heartbeat.
   * First waits, at most one node timeout, for the commands already given to the nodes (a
   * release's commands beyond the majority it resolved on): `await lock.release(); await
   * redlock.quit()` leaves no key behind, as with node-redlock, whose release waits for every node.
   */
  async quit(): Promise<void> {
    this.holder?.stop();
    this.core.releaseWaiter?.close();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.core.nodes.map((node) => node.drained())),
      new Promise((resolve) => (timer = setTimeout(resolve, this.settings.nodeTimeout))),
    ]);
    clearTimeout(timer);
    await Promise.all([...this.clients].map((client) => client.quit()));
  }
}
