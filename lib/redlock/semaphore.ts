import type { Guarded } from "./acquire";
import { ShapeMismatchError } from "./errors";
import type { Guard } from "./guard";
import { internalsOf } from "./internals";
import { RESERVED_PREFIX } from "./protocol";
import type { Lock } from "./lock";
import { waitersKey } from "./keys";
import { assertTtl, type CallSettings } from "./settings";
import { assertSlotCount, assertSlotName, chooseSlot } from "./slots";
import type { RedlockAbortSignal } from "./types";
import { using, type LockOperations } from "./using";

/** The guard recording a semaphore's permit count: `redlock:semaphore:{name}`. */
export const semaphoreKey = (name: string): string => `${RESERVED_PREFIX}semaphore:{${name}}`;
/** A semaphore's permit i: the ordinary lock `{name}#i` (the braces: one Cluster slot for all). */
export const permitKey = (name: string, index: number): string => `{${name}}#${index}`;
/** The one waiters set of a semaphore or read-write lock: `redlock:waiters:{name}`. */
export const queueKey = (name: string): string => waitersKey(`{${name}}`);

type Routine<T> = (signal: RedlockAbortSignal) => Promise<T>;

/**
 * A counting semaphore on the Redlock quorum (`redlock.semaphore(name, permits)`): at most
 * `permits` holders at once, each holding one permit, an ordinary lock on `{name}#<i>`, so
 * sessions, revoke, tombstones and fencing work per permit. An attempt probes every node for the
 * free permits (one script each), then locks one of them as a lock is locked; its acquire and
 * extend also keep the permit count recorded at `redlock:semaphore:{name}`, which refuses a client
 * that gives another count (ShapeMismatchError). Waiters share one queue, woken by any release.
 */
export class Semaphore {
  /** Every permit's resource, `{name}#0` … */
  readonly resources: readonly string[];
  private readonly guarded: Guarded;

  constructor(
    private readonly redlock: LockOperations,
    readonly name: string,
    readonly permits: number,
  ) {
    assertSlotName(name);
    assertSlotCount(permits, "A semaphore's permits");
    this.resources = Array.from({ length: permits }, (_, index) => permitKey(name, index));
    const guard: Guard = {
      key: semaphoreKey(name),
      expected: String(permits),
      blockers: [],
      queueKey: queueKey(name),
    };
    const mismatch = (recorded: string) =>
      new ShapeMismatchError(name, permits, Number(recorded), "permits");
    const { core } = internalsOf(redlock);
    this.guarded = {
      guard,
      mismatch,
      choose: () =>
        chooseSlot(
          core,
          this.resources,
          guard,
          [],
          { mismatch },
          this.redlock.settings.nodeTimeout,
        ),
    };
  }

  /**
   * Takes one free permit for `ttlMs`, waiting as `acquire` waits (retries, handoff, signal).
   * The Lock's `permit` is its index. Throws ExecutionError when no permit came free in time,
   * ShapeMismatchError when the masters record another permit count.
   */
  acquire(ttlMs: number, settings: CallSettings = {}): Promise<Lock> {
    assertTtl(ttlMs);
    return internalsOf(this.redlock).acquireGuarded(
      [...this.resources],
      ttlMs,
      settings,
      this.guarded,
    );
  }

  using<T>(ttlMs: number, settings: CallSettings, routine: Routine<T>): Promise<T>;
  using<T>(ttlMs: number, routine: Routine<T>): Promise<T>;
  /** Runs `routine` holding a permit, as `redlock.using` does (auto-extension, the same signal). */
  using<T>(
    ttlMs: number,
    settingsOrRoutine: CallSettings | Routine<T>,
    optionalRoutine?: Routine<T>,
  ): Promise<T> {
    return runUsing(this.redlock, (duration, settings) => this.acquire(duration, settings), [
      ttlMs,
      settingsOrRoutine,
      optionalRoutine,
    ]);
  }
}

/** `using` for a lock taken by `take` (a permit, a read or a write). */
export async function runUsing<T>(
  redlock: LockOperations,
  take: (ttlMs: number, settings: CallSettings) => Promise<Lock>,
  [ttlMs, settingsOrRoutine, optionalRoutine]: [
    number,
    CallSettings | Routine<T>,
    Routine<T> | undefined,
  ],
): Promise<T> {
  const settings = typeof settingsOrRoutine === "function" ? {} : settingsOrRoutine;
  const routine = typeof settingsOrRoutine === "function" ? settingsOrRoutine : optionalRoutine;
  if (typeof routine !== "function")
    throw new TypeError("using() needs a routine: an async function that receives an AbortSignal.");
  assertTtl(ttlMs);
  const operations: LockOperations = {
    settings: redlock.settings,
    acquire: (_resources, duration, callSettings) => take(duration, callSettings ?? {}),
    extend: (lock, duration, callSettings) => redlock.extend(lock, duration, callSettings),
  };
  return using(operations, [], ttlMs, settings, routine, internalsOf(redlock).holdings);
}
