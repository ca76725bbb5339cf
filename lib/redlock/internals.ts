/**
 * What semaphore.ts and read-write-lock.ts need from their Redlock instance beyond its public API:
 * its nodes, and an acquire under a guard that makes a Lock as `acquire` does (session, holdings,
 * telemetry). Kept off the public class: a WeakMap filled by the constructor.
 */
import type { Guarded } from "./acquire";
import type { Core } from "./core";
import type { Holdings } from "./holdings";
import type { Lock } from "./lock";
import type { CallSettings } from "./settings";

export interface RedlockInternals {
  readonly core: Core;
  /** The session's holdings, for `using` (unset with `session: false`). */
  readonly holdings: Pick<Holdings, "watch"> | undefined;
  acquireGuarded(
    resources: string[],
    ttlMs: number,
    settings: CallSettings,
    guarded: Guarded,
  ): Promise<Lock>;
}

const internals = new WeakMap<object, RedlockInternals>();

export const registerInternals = (redlock: object, parts: RedlockInternals): void => {
  internals.set(redlock, parts);
};

export function internalsOf(redlock: object): RedlockInternals {
  const parts = internals.get(redlock);
  if (!parts) throw new TypeError("Not a Redlock instance.");
  return parts;
}
