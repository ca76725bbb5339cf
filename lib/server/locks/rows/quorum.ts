/**
 * The quorum rules, written once: which value a majority of nodes holds, how long it stays on a
 * majority, a row's state and its waiters. The rows (fold.ts), the live index, the timeline and the
 * metrics all ask here, so "held" means the same thing on every page and in every transition. Pure,
 * and tested as tables (test/server/quorum.test.ts).
 *
 * Reads are per node, in node order: what the node holds, null (absent) or undefined (unreachable).
 * An expiry is a TTL or an instant, negative when the key never expires: the rules only compare
 * expiries, so one function serves both.
 */
import type { LockState, WaitersSummary } from "@/lib/api";

/** How many nodes make a majority: the library's rule, so the console counts as Redlock votes. */
export { quorumSize } from "@redlock-console/redlock";

/** Per node, in node order: what it holds, null (absent) or undefined (unreachable). */
export type PerNode<T> = ReadonlyArray<T | null | undefined>;

interface Held {
  readonly value: string;
}

/** A key without expiry outlasts every key with one. */
const expiryRank = (expiry: number) => (expiry < 0 ? Number.POSITIVE_INFINITY : expiry);

/** The quorumSize-th largest of `values`: what at least quorumSize of them reach; null when fewer. */
export function quorumLargest(values: readonly number[], quorumSize: number): number | null {
  if (values.length < quorumSize) return null;
  return [...values].sort((a, b) => b - a)[quorumSize - 1]!;
}

/**
 * How long the holders of one value keep it on a majority, from their TTLs or expiry instants: the
 * quorumSize-th latest, since once it passes fewer than quorumSize nodes hold the value. Not the
 * earliest: nodes beyond the majority may lose the value first while the lock still holds.
 * -1 when it never expires; null when fewer than quorumSize nodes hold the value.
 */
export function quorumExpiry(expiries: readonly number[], quorumSize: number): number | null {
  const expiry = quorumLargest(expiries.map(expiryRank), quorumSize);
  return expiry === Number.POSITIVE_INFINITY ? -1 : expiry;
}

/** A value and the nodes holding it, in node order. */
export interface Holding<T> {
  readonly value: string;
  readonly holders: readonly T[];
}

/**
 * The value most nodes hold. A tie goes to the value that stays longest (by `expiryOf`), then to
 * the smaller value, so every read of the same conflict names the same value. null when no node
 * holds anything.
 */
export function leadingValue<T extends Held>(
  reads: PerNode<T>,
  expiryOf: (read: T) => number,
): Holding<T> | null {
  const byValue = new Map<string, T[]>();
  for (const read of reads) {
    if (!read) continue;
    const holders = byValue.get(read.value);
    if (holders) holders.push(read);
    else byValue.set(read.value, [read]);
  }
  const latest = (holders: readonly T[]) =>
    Math.max(...holders.map((holder) => expiryRank(expiryOf(holder))));
  let best: Holding<T> | null = null;
  for (const [value, holders] of byValue) {
    const ahead =
      !best ||
      holders.length > best.holders.length ||
      (holders.length === best.holders.length &&
        (latest(holders) > latest(best.holders) ||
          (latest(holders) === latest(best.holders) && value < best.value)));
    if (ahead) best = { value, holders };
  }
  return best;
}

/** The value held by at least quorumSize nodes (at most one value can be), or null. */
export function majorityValue<T extends Held>(
  reads: PerNode<T>,
  quorumSize: number,
  expiryOf: (read: T) => number,
): Holding<T> | null {
  const leading = leadingValue(reads, expiryOf);
  return leading && leading.holders.length >= quorumSize ? leading : null;
}

/**
 * held when one value is on at least quorumSize nodes, partial when on fewer, conflict when
 * reachable nodes hold different values (whatever their counts); null when none holds anything.
 * Allocates nothing: the live index asks on every change of every key.
 */
export function rowState(reads: PerNode<Held>, quorumSize: number): LockState | null {
  let first: string | undefined;
  let holders = 0;
  for (const read of reads) {
    if (!read) continue;
    if (first === undefined) first = read.value;
    else if (read.value !== first) return "conflict";
    holders += 1;
  }
  if (first === undefined) return null;
  return holders >= quorumSize ? "held" : "partial";
}

/**
 * Where `value` stands: on a majority of nodes; on one only if the unreachable nodes still hold it
 * (an unreachable node is not known to have lost it); or lost.
 */
export type Standing = "majority" | "possible" | "lost";

export function standingOf(reads: PerNode<Held>, value: string, quorumSize: number): Standing {
  let holders = 0;
  let unreachable = 0;
  for (const read of reads) {
    if (read === undefined) unreachable += 1;
    else if (read?.value === value) holders += 1;
  }
  if (holders >= quorumSize) return "majority";
  return holders + unreachable >= quorumSize ? "possible" : "lost";
}

/**
 * Each contender registers on every node, so the fullest list is the best count (a node that
 * missed a registration only lags), and the oldest entry on any node is the longest wait.
 */
export function waitersOf(
  reads: PerNode<{ readonly waiters?: WaitersSummary | null }>,
): WaitersSummary {
  let count = 0;
  let oldestSince: number | null = null;
  for (const read of reads) {
    const waiters = read?.waiters;
    if (!waiters) continue;
    count = Math.max(count, waiters.count);
    if (waiters.oldestSince !== null && (oldestSince === null || waiters.oldestSince < oldestSince))
      oldestSince = waiters.oldestSince;
  }
  return { count, oldestSince };
}
