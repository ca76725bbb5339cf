import "server-only";
/**
 * LOCK_MATCH as one predicate (issue 49 rows 3 and 8): the lock page reads a key only when it is
 * covered, and every write route (force-release in every mode, revoke, a holder session's release,
 * the playground's acquire, extend and release) writes only a key it would read as a lock key.
 * LOCK_MATCH says which keys are locks; the console never writes what it may not read, so an
 * operator's force-release can never replace an application's `user:42`.
 */
import { permitKey, RESERVED_PREFIX, writerKey } from "@redlock-console/redlock";
import { ApiError } from "../../errors";
import { compileGlob } from "./glob";

/**
 * How LOCK_MATCH covers a name: "lock-key" (the key itself is a lock key), "group-name" (not a key
 * of its own, but the name of a semaphore or read-write lock whose member keys are lock keys: read
 * only, a write goes to the member keys), or "outside" (never read, never written). Keys under the
 * library's reserved prefix are always outside: they are its auxiliary keys, never locks.
 */
export type LockMatchCoverage = "lock-key" | "group-name" | "outside";

export type LockMatch = (key: Buffer) => LockMatchCoverage;

export const OUTSIDE_LOCK_MATCH_READ =
  "This key is outside LOCK_MATCH: the console reads and shows only lock keys.";

export const OUTSIDE_LOCK_MATCH_WRITE =
  "This key is outside LOCK_MATCH: the console writes only keys it reads as locks, so it leaves " +
  "this one (an application's key, as far as the console can tell) exactly as it is.";

// Compiled once per pattern list (the config's, for the process's life), never per request.
const compiled = new WeakMap<readonly string[], LockMatch>();

/** The predicate for `patterns` (LOCK_MATCH), compiled once per list. */
export function lockMatchOf(patterns: readonly string[]): LockMatch {
  const known = compiled.get(patterns);
  if (known) return known;
  const matchers = patterns.map(compileGlob);
  const inside = (text: string) => matchers.some((matches) => matches(text));
  const match: LockMatch = (key) => {
    if (key.toString("latin1").startsWith(RESERVED_PREFIX)) return "outside";
    // Globs match the name as text, as the index's SCAN MATCH and its events do.
    const name = key.toString("utf8");
    if (inside(name)) return "lock-key";
    return [permitKey(name, 0), writerKey(name)].some(inside) ? "group-name" : "outside";
  };
  compiled.set(patterns, match);
  return match;
}

/** Throws 404 outside_lock_match unless `key` is itself a lock key: what every write route asks. */
export function assertWritableKey(patterns: readonly string[], key: Buffer): void {
  if (lockMatchOf(patterns)(key) !== "lock-key")
    throw new ApiError("outside_lock_match", OUTSIDE_LOCK_MATCH_WRITE);
}
