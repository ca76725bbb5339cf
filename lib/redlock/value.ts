import { isLabels } from "./owner";
import type { OwnerInfo } from "./types";

/**
 * The lock's value on every node. With `owner: false` it is the bare token: 20 random bytes as 40
 * hex chars, exactly node-redlock's. With owner labels (the default) the owner travels in the value,
 * so `GET <resource>` alone says who holds it and no second key is written:
 *
 *   rl1:<40-hex token>:{"acquiredAt":<epoch ms>,"ttlMs":<ms>,"labels":{...}}
 *
 * `rl1:` names the format and its version; the token has a fixed length; the JSON runs to the end.
 * Scripts compare the whole value, so the token alone still decides who holds the lock. `ttlMs` is
 * the TTL it was acquired with: a lock held longer than that was extended (extensions are no longer
 * counted on the nodes, as 1.x's owner hash did: a value never changes while held).
 */
export const VALUE_FORMAT_PREFIX = "rl1:";
const TOKEN_CHARS = 40;
const JSON_START = VALUE_FORMAT_PREFIX.length + TOKEN_CHARS + 1;
const TOKEN = /^[0-9a-f]{40}$/;

/** The value for a token and, unless owner metadata is off, its labels JSON and acquisition. */
export function encodeValue(
  token: string,
  labelsJson: string | undefined,
  acquiredAtMs: number,
  ttlMs: number,
): string {
  if (labelsJson === undefined) return token;
  // Built by hand around the labels JSON computed once per settings (owner.ts): no stringify per acquire.
  return `${VALUE_FORMAT_PREFIX}${token}:{"acquiredAt":${acquiredAtMs},"ttlMs":${ttlMs},"labels":${labelsJson}}`;
}

/** What a value written by this library says; undefined for any other value (another library's). */
export function decodeValue(value: string): { token: string; owner: OwnerInfo } | undefined {
  if (!value.startsWith(VALUE_FORMAT_PREFIX) || value[JSON_START - 1] !== ":") return undefined;
  const token = value.slice(VALUE_FORMAT_PREFIX.length, JSON_START - 1);
  if (!TOKEN.test(token)) return undefined;
  try {
    const parsed = JSON.parse(value.slice(JSON_START)) as Record<string, unknown>;
    const { acquiredAt, ttlMs, labels } = parsed;
    if (!Number.isSafeInteger(acquiredAt) || !Number.isSafeInteger(ttlMs) || !isLabels(labels))
      return undefined;
    return { token, owner: { labels, acquiredAt: acquiredAt as number, ttlMs: ttlMs as number } };
  } catch {
    return undefined;
  }
}

/**
 * Whether the holder has extended its lock, as far as anyone reading the nodes can tell: a 1.x owner
 * entry counted extensions; a 2.x value only shows it once the lock is held longer than its first TTL.
 */
export const wasExtended = (owner: OwnerInfo, nowMs: number): boolean =>
  owner.extensions !== undefined
    ? owner.extensions > 0
    : owner.ttlMs !== undefined && nowMs - owner.acquiredAt > owner.ttlMs;
