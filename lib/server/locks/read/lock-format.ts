/**
 * What is a lock (issue 32 row 8): a key is listed, kept and served only when its value has a
 * recognised lock format. With a TTL: this library's `rl1:` values, bare hex tokens (this library
 * with `owner: false`, node-redlock, redis-py's Lock), redsync's base64 tokens (22 or 24
 * characters), UUIDs (redlock-py, redlock-rb), force-release tombstones (`rlx:`) and Redisson hashes
 * (key-state.ts), and redis-semaphore's sorted sets (parseRedisSemaphore, below: read only).
 * Without a TTL only a format that is unmistakably a lock's (`rl1:`, `rlx:`, a
 * Redisson hash with UUID holder fields) is shown, as a lock that never expires: an application's
 * `user:1 = {...}` or `app:note = hello world` is skipped, never read out.
 *
 * A value over 4 KiB reaches the console cut (read-key.ts) and is judged by its first bytes: an
 * `rl1:` (or `rlx:`) value whose JSON is cut is still a lock, since its token is whole in the first
 * 45 bytes; a token shape is never that long, so a cut value of no such prefix is no lock. Over
 * 8 MiB a value is no lock at all (the read skips it unhashed).
 */
import { startsAsValue } from "@redlock-console/redlock/protocol";
import type { LockFormat } from "@/lib/api";
import { isTombstone } from "./tombstone";

/** Random tokens other libraries store as the value, each of a fixed shape. */
const TOKEN_SHAPES: readonly RegExp[] = [
  /** Hex: this library with `owner: false` and node-redlock (40), redis-py's Lock (uuid1().hex: 32). */
  /^[0-9a-fA-F]{32}$|^[0-9a-fA-F]{40}$|^[0-9a-fA-F]{64}$/,
  /** redsync: 16 random bytes, base64 (24 with padding) or raw/URL base64 (22). */
  /^[A-Za-z0-9+/]{22}==$|^[A-Za-z0-9+/_-]{22}$/,
  /** UUIDs: redlock-py, redlock-rb (SecureRandom.uuid), and Redisson-style holders. */
  /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
];

/** True for a value only a lock has, whatever its TTL: `rl1:` and `rlx:` values. */
export const isUnmistakableLockValue = (value: string): boolean =>
  isTombstone(value) || startsAsValue(value);

/**
 * The format a string value is recognised as, given its PTTL (-1: no expiry); null when it is no
 * lock (then the key is skipped: not listed, not kept, its value never served).
 */
export function stringLockFormat(value: string, pttlMs: number): LockFormat | null {
  if (isTombstone(value)) return "tombstone";
  if (startsAsValue(value)) return "string";
  if (pttlMs < 0) return null;
  return TOKEN_SHAPES.some((shape) => shape.test(value)) ? "string" : null;
}

/** Redisson holder field `<client uuid>:<thread id>`, required of a hash lock without a TTL. */
export const REDISSON_UUID_FIELD =
  /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}:\d+$/;

/**
 * redis-semaphore's identifiers: `crypto.randomUUID()` (lowercase v4), with its `identifierSuffix`
 * after a dash, and `_<i>` per permit of its MultiSemaphore. A custom `identifier` option is not
 * recognised: the set is then no lock the console lists.
 */
const REDIS_SEMAPHORE_MEMBER =
  /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}(-[\x21-\x7e]{1,64})?(_\d{1,4})?$/;
/** Its scores are `Date.now()` at the holder's last acquire or refresh: epoch ms of 13 digits. */
const EPOCH_MS_SCORE = /^1\d{12}$/;

/**
 * redis-semaphore's Semaphore, from `ZRANGE semaphore:<key> 0 -1 WITHSCORES` and its PTTL; null
 * when any member or score is not of its exact format. Its acquire and refresh scripts drop
 * entries older than `lockTimeout`, write `now` as the score and PEXPIRE the set by `lockTimeout`,
 * so the newest score plus lockTimeout is the set's expiry: an entry is live while its score is
 * within the PTTL of the newest. Dead entries wait for the next acquire to be dropped, so they are
 * not counted. The value is the live holders, sorted and joined by commas (as a Redisson hash's).
 */
export function parseRedisSemaphore(
  entries: readonly string[],
  pttlMs: number,
): { value: string; holdCount: number } | null {
  if (pttlMs <= 0 || entries.length === 0 || entries.length % 2 !== 0) return null;
  const holders: Array<{ member: string; scoreMs: number }> = [];
  for (let index = 0; index + 1 < entries.length; index += 2) {
    const member = entries[index]!;
    const score = entries[index + 1]!;
    if (!REDIS_SEMAPHORE_MEMBER.test(member) || !EPOCH_MS_SCORE.test(score)) return null;
    holders.push({ member, scoreMs: Number(score) });
  }
  const newestMs = Math.max(...holders.map((holder) => holder.scoreMs));
  const live = holders
    .filter((holder) => holder.scoreMs > newestMs - pttlMs)
    .map((holder) => holder.member)
    .sort();
  return { value: live.join(","), holdCount: live.length };
}
