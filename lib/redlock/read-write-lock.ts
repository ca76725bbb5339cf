import type { Guarded } from "./acquire";
import { ShapeMismatchError } from "./errors";
import type { Guard } from "./guard";
import { internalsOf } from "./internals";
import type { Lock } from "./lock";
import { RESERVED_PREFIX } from "./protocol";
import { queueKey, runUsing } from "./semaphore";
import { assertTtl, resolveSettings, type CallSettings } from "./settings";
import { assertSlotCount, assertSlotName, chooseSlot } from "./slots";
import type { RedlockAbortSignal } from "./types";
import type { LockOperations } from "./using";

/** Reader slots of a read-write lock unless `maxReaders` says otherwise. */
export const DEFAULT_MAX_READERS = 64;

/** The guard recording a read-write lock's reader slots: `redlock:rwlock:{name}`. */
export const rwLockKey = (name: string): string => `${RESERVED_PREFIX}rwlock:{${name}}`;
/** Set while a writer waits (refused at its last attempt): new readers are refused. */
export const writerWaitingKey = (name: string): string => `${rwLockKey(name)}:writer-waiting`;
/** The writer's lock: `{name}#w`. */
export const writerKey = (name: string): string => `{${name}}#w`;
/** Reader i's lock: `{name}#r<i>`, each reader a member of its own. */
export const readerKey = (name: string, index: number): string => `{${name}}#r${index}`;

type Routine<T> = (signal: RedlockAbortSignal) => Promise<T>;

/**
 * A read-write lock on the Redlock quorum (`redlock.readWriteLock(name)`). Each reader holds its
 * own reader slot, an ordinary lock on `{name}#r<i>` (so a force-release or revoke of one reader
 * reaches that reader only); the writer holds `{name}#w`. A reader is granted on a node only while
 * neither the writer's key nor the writer-waiting mark is there; the writer only while no reader
 * slot is held there; majority intersection then keeps a writer apart from every reader and every
 * other writer. The rule against writer starvation: a writer refused at an attempt marks the lock
 * "writer waiting" on those nodes for one retry window (retryDelay + retryJitter + 2 nodeTimeout of
 * the instance), renewed at each refused attempt; new readers are refused while it stands, readers
 * already in keep their hold, and the writer gets in once they leave. A write that does not retry (retryCount 0) marks nothing. Readers and writers wait in
 * one queue, woken by any release.
 */
export class ReadWriteLock {
  /** Every reader slot's resource, `{name}#r0` … */
  readonly readerResources: readonly string[];
  readonly writerResource: string;
  private readonly reading: Guarded;
  private readonly writing: Omit<Guarded, "guard"> & { guard: Omit<Guard, "intent"> };

  constructor(
    private readonly redlock: LockOperations,
    readonly name: string,
    readonly maxReaders = DEFAULT_MAX_READERS,
  ) {
    assertSlotName(name);
    assertSlotCount(maxReaders, "A read-write lock's maxReaders");
    this.readerResources = Array.from({ length: maxReaders }, (_, index) => readerKey(name, index));
    this.writerResource = writerKey(name);
    const { nodeTimeout } = redlock.settings;
    const shared = { key: rwLockKey(name), expected: String(maxReaders), queueKey: queueKey(name) };
    const mismatch = (recorded: string) =>
      new ShapeMismatchError(name, maxReaders, Number(recorded), "reader slots");
    const readerBlockers = [this.writerResource, writerWaitingKey(name)];
    const readGuard: Guard = { ...shared, blockers: readerBlockers };
    const { core } = internalsOf(redlock);
    this.reading = {
      guard: readGuard,
      mismatch,
      choose: () =>
        chooseSlot(
          core,
          this.readerResources,
          readGuard,
          readerBlockers,
          { mismatch },
          nodeTimeout,
        ),
    };
    this.writing = { guard: { ...shared, blockers: this.readerResources }, mismatch };
  }

  /** Takes a read hold for `ttlMs`: shared with other readers, never beside a writer. */
  read(ttlMs: number, settings: CallSettings = {}): Promise<Lock> {
    assertTtl(ttlMs);
    return internalsOf(this.redlock).acquireGuarded(
      [...this.readerResources],
      ttlMs,
      settings,
      this.reading,
    );
  }

  /**
   * Takes the write hold for `ttlMs`: alone, with no reader and no other writer. A write that will
   * retry marks the lock "writer waiting" at each refused attempt, for one retry window.
   */
  write(ttlMs: number, settings: CallSettings = {}): Promise<Lock> {
    assertTtl(ttlMs);
    const { retryCount, retryDelay, retryJitter, nodeTimeout } = resolveSettings(
      this.redlock.settings,
      settings,
    );
    const waits = retryCount !== 0;
    const intent = {
      key: writerWaitingKey(this.name),
      ttlMs: retryDelay + retryJitter + 2 * nodeTimeout,
    };
    const guarded: Guarded = waits
      ? { ...this.writing, guard: { ...this.writing.guard, intent } }
      : this.writing;
    return internalsOf(this.redlock).acquireGuarded(
      [this.writerResource],
      ttlMs,
      settings,
      guarded,
    );
  }

  usingRead<T>(ttlMs: number, settings: CallSettings, routine: Routine<T>): Promise<T>;
  usingRead<T>(ttlMs: number, routine: Routine<T>): Promise<T>;
  /** Runs `routine` holding a read, as `redlock.using` does. */
  usingRead<T>(
    ttlMs: number,
    settingsOrRoutine: CallSettings | Routine<T>,
    routine?: Routine<T>,
  ): Promise<T> {
    return runUsing(this.redlock, (duration, settings) => this.read(duration, settings), [
      ttlMs,
      settingsOrRoutine,
      routine,
    ]);
  }

  usingWrite<T>(ttlMs: number, settings: CallSettings, routine: Routine<T>): Promise<T>;
  usingWrite<T>(ttlMs: number, routine: Routine<T>): Promise<T>;
  /** Runs `routine` holding the write, as `redlock.using` does. */
  usingWrite<T>(
    ttlMs: number,
    settingsOrRoutine: CallSettings | Routine<T>,
    routine?: Routine<T>,
  ): Promise<T> {
    return runUsing(this.redlock, (duration, settings) => this.write(duration, settings), [
      ttlMs,
      settingsOrRoutine,
      routine,
    ]);
  }
}
