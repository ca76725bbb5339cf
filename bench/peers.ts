/**
 * One adapter per library, so every scenario drives them the same way. The peers throw
 * ExecutionError when they cannot lock (as ours does); the adapter turns that into an outcome with
 * the number of attempts made, so contention can count wasted attempts for all three alike.
 */
import { Redlock as SesameRedlock } from "@sesamecare-oss/redlock";
import type { Redis } from "ioredis";
import NodeRedlock from "redlock";
import SourceRedlock from "@redlock-console/redlock";
import { compileOurs } from "./compile-ours";

export type LibraryName = "ours" | "node-redlock" | "sesamecare";

/** Settings every library understands, with the same meaning; unset = the library's default. */
export interface CommonSettings {
  retryCount?: number;
  retryDelay?: number;
  retryJitter?: number;
  /** Ours only (the peers have no owner entry): `false` measures ours without it. */
  owner?: false;
}

export interface AcquireOutcome {
  /** The lock when acquired; undefined when every attempt failed. */
  readonly handle?: unknown;
  readonly attempts: number;
}

export interface LockAdapter {
  acquire(resource: string, ttlMs: number): Promise<AcquireOutcome>;
  release(handle: unknown): Promise<void>;
  /** The library's quit(): closes its clients and anything it opened (our wake subscribers). */
  quit(): Promise<void>;
}

interface RedlockLike {
  acquire(resources: string[], ttlMs: number): Promise<{ attempts: ReadonlyArray<unknown> }>;
  release(lock: never): Promise<unknown>;
  quit(): Promise<void>;
}

const attemptsOf = (error: unknown): number | undefined => {
  const attempts = (error as { attempts?: unknown[] } | undefined)?.attempts;
  return Array.isArray(attempts) ? attempts.length : undefined;
};

function adapt(redlock: RedlockLike): LockAdapter {
  return {
    async acquire(resource, ttlMs) {
      try {
        const lock = await redlock.acquire([resource], ttlMs);
        return { handle: lock, attempts: lock.attempts.length };
      } catch (error) {
        const attempts = attemptsOf(error);
        if (attempts === undefined) throw error;
        return { attempts };
      }
    },
    async release(handle) {
      // The peers reject when a quorum did not confirm the release; the keys expire anyway.
      await redlock.release(handle as never).catch((error: unknown) => {
        if (attemptsOf(error) === undefined) throw error;
      });
    },
    quit: () => redlock.quit(),
  };
}

const withoutUndefined = (settings: CommonSettings) =>
  Object.fromEntries(
    Object.entries(settings).filter(([, value]) => value !== undefined),
  ) as CommonSettings;

let OurRedlock: typeof SourceRedlock = SourceRedlock;

/**
 * Loads our library as tsc-compiled JavaScript (see compile-ours.ts), or from source through tsx
 * when BENCH_OURS=tsx. Returns how it was loaded, for the results file.
 */
export async function loadOurs(): Promise<"tsc-compiled" | "tsx-source"> {
  if (process.env.BENCH_OURS === "tsx") return "tsx-source";
  const compiled = (await import(compileOurs())) as { default: typeof SourceRedlock };
  OurRedlock = compiled.default;
  return "tsc-compiled";
}

const factories: Record<LibraryName, (clients: Redis[], settings: CommonSettings) => RedlockLike> =
  {
    ours: (clients, settings) => new OurRedlock(clients, settings),
    "node-redlock": (clients, settings) => new NodeRedlock(clients, settings),
    sesamecare: (clients, settings) => new SesameRedlock(clients, settings),
  };

/** Our Redlock class as loadOurs() loaded it (the source until it is called). */
export const ourRedlockClass = (): typeof SourceRedlock => OurRedlock;

export const LIBRARIES: readonly LibraryName[] = ["ours", "node-redlock", "sesamecare"];

export function createAdapter(
  library: LibraryName,
  clients: Redis[],
  settings: CommonSettings = {},
): LockAdapter {
  return adapt(factories[library](clients, withoutUndefined(settings)));
}

/** The libraries in a different order each round, so none always runs first (warm-up, GC, noise). */
export function interleaved(roundIndex: number): LibraryName[] {
  const shift = roundIndex % LIBRARIES.length;
  return [...LIBRARIES.slice(shift), ...LIBRARIES.slice(0, shift)];
}
