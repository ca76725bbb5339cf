/**
 * What a read of one lock key on one node yields, and the Redisson hash-lock format: the shape the
 * read step hands to the watch and to the row fold.
 */
import type { LockFormat, OwnerInfo, WaitersSummary } from "@/lib/api";
import type { ValueCut } from "./read-key";
import type { WaiterRef } from "./waiter-list";

/** What one node holds under one key. pttlMs -1: no expiry. */
export interface NodeKeyState {
  readonly value: string;
  readonly pttlMs: number;
  readonly format: LockFormat;
  readonly holdCount: number | null;
  /** The node's owner entry, already checked to belong to `value`; null or absent: none. */
  readonly owner?: OwnerInfo | null;
  /** Live waiters listed on this node; absent: none. */
  readonly waiters?: WaitersSummary;
  /** Present when `value` is only the first READ_VALUE_MAX_BYTES of the node's value (read-key.ts). */
  readonly cut?: ValueCut;
  /** Up to WAITERS_LISTED live waiter entries on this node (the wait-for graph); absent: none. */
  readonly waiterList?: readonly WaiterRef[];
  /**
   * For a semaphore's permit or a read-write lock's member key (group-count.ts): the count recorded
   * beside it on this node; absent or null when none (then the key is an ordinary lock).
   */
  readonly groupCount?: number | null;
}

const REDISSON_FIELD = /^.+:\d+$/;

/**
 * A Redisson lock is a hash whose fields are `<client uuid>:<thread id>` -> re-entry count (its
 * read-write lock adds a "mode" field). The holder is the sorted field list; anything else is no lock.
 */
export function parseRedissonHash(
  fields: Record<string, string>,
): Pick<NodeKeyState, "value" | "holdCount"> | null {
  const holders = Object.keys(fields)
    .filter((field) => field !== "mode")
    .sort();
  if (holders.length === 0) return null;
  if (!holders.every((field) => REDISSON_FIELD.test(field) && /^\d+$/.test(fields[field] ?? "")))
    return null;
  const holdCount = holders.reduce((sum, field) => sum + Number(fields[field]), 0);
  return { value: holders.join(","), holdCount };
}
