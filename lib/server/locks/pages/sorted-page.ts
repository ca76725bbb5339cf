import "server-only";
/**
 * Pages of `GET /api/locks` in an order other than the index's own (held for, validity, service),
 * or filtered by owner label: the server sorts every matching lock of the index, so the overview
 * asks for the page it shows instead of fetching every row and sorting in the browser.
 * The order is computed from what the index stores per node (no row is folded to be sorted) and
 * kept per query for a second, or four times what it took to build: a second viewer, the next page
 * or a re-fetch after a change reads it again instead of sorting 100,000 rows once more. Rows on a
 * page are folded when served, so their validity is current even when their place is a little old.
 */
import { decodeValue } from "@redlock-console/redlock";
import {
  labelsMatch,
  parseOwnerFilter,
  type LockRow,
  type LockSort,
  type LocksQuery,
  type OwnerLabelFilter,
} from "@/lib/api";
import { ApiError } from "../../errors";
import type { Reads } from "../rows/index-handlers";

/** How long one query's order is reused at least, in ms. */
const ORDER_KEEP_MS = 1_000;
/**
 * An order is reused for at least this many times what it took to build: building one over 50,000
 * locks reads 250,000 node states (~0.1–0.3 s on a loaded 2-core host), so a query kept sorted
 * costs at most a fifth of a core, however many viewers ask.
 */
const ORDER_KEEP_PER_BUILD_MS = 4;
/** Orders kept per index (distinct match/state/owner/sort/order). */
const ORDERS_KEPT = 16;

/** What a sorted page needs of the index besides the rows (LiveIndex implements it). */
export interface SortSource {
  reads(key: string): Reads;
  readonly quorumSize: number;
}

type SortValue = number | string | null;

interface Order {
  /** Until when the order is reused (console clock); undefined while it is built (shared then). */
  keptUntilMs?: number;
  readonly keys: Promise<readonly string[]>;
}

/** Per index (the WeakMap's key), its kept orders by query. */
const orders = new WeakMap<object, Map<string, Order>>();

interface Majority {
  readonly value: string;
  /** Expiry instants of the nodes holding `value` (Infinity: no TTL), largest first. */
  readonly expiries: number[];
  readonly acquiredAtMs: number | null;
}

/**
 * The majority value of `reads` at `nowMs` (keys expired by the clock count as absent), or null.
 * Written without maps or closures: it runs once per lock (100,000 times) for each order built.
 */
function majorityOf(reads: Reads, quorumSize: number, nowMs: number): Majority | null {
  for (let first = 0; first < reads.length; first += 1) {
    const candidate = reads[first];
    if (!candidate || (candidate.expiresAtMs >= 0 && candidate.expiresAtMs <= nowMs)) continue;
    const expiries: number[] = [];
    let acquiredAtMs: number | null = null;
    for (let index = first; index < reads.length; index += 1) {
      const read = reads[index];
      if (!read || read.value !== candidate.value) continue;
      if (read.expiresAtMs >= 0 && read.expiresAtMs <= nowMs) continue;
      expiries.push(read.expiresAtMs < 0 ? Number.POSITIVE_INFINITY : read.expiresAtMs);
      acquiredAtMs ??= read.acquiredAtMs;
    }
    // A value first seen after half the nodes can no longer reach a majority.
    if (expiries.length >= quorumSize)
      return { value: candidate.value, expiries: expiries.sort((a, b) => b - a), acquiredAtMs };
    if (reads.length - first - 1 < quorumSize) return null;
  }
  return null;
}

/** Labels decoded per value, so an order rebuilt every second parses each value's JSON once. */
const labelsByValue = new Map<string, Readonly<Record<string, string>> | null>();
/** Values whose labels are kept at most; past it the cache starts again (it refills in one order). */
const LABELS_KEPT = 250_000;

/** The holder's owner labels, from a 1.x owner entry or this library's value; null for others. */
function labelsOf(reads: Reads, value: string): Readonly<Record<string, string>> | null {
  const legacy = reads.find((read) => read?.value === value)?.legacyOwner;
  if (legacy) return legacy.labels;
  let labels = labelsByValue.get(value);
  if (labels === undefined) {
    if (labelsByValue.size >= LABELS_KEPT) labelsByValue.clear();
    labels = decodeValue(value)?.owner.labels ?? null;
    labelsByValue.set(value, labels);
  }
  return labels;
}

/** A row's place in `sort` (null: unknown, sorted last), or undefined when the owner filter drops it. */
function sortValueOf(
  reads: Reads,
  sort: LockSort,
  filter: OwnerLabelFilter | null,
  quorumSize: number,
  nowMs: number,
): SortValue | undefined {
  const majority = majorityOf(reads, quorumSize, nowMs);
  const needsLabels = filter !== null || sort === "service";
  const labels = majority && needsLabels ? labelsOf(reads, majority.value) : null;
  if (!labelsMatch(labels, filter)) return undefined;
  switch (sort) {
    case "heldFor":
      // Held longer = acquired earlier: ascending by time held is descending by acquisition.
      return majority?.acquiredAtMs == null ? null : -majority.acquiredAtMs;
    case "validity": {
      // The quorum-th largest expiry among the nodes holding the value (the fold's validity rule);
      // no majority: already invalid, first.
      if (!majority) return Number.NEGATIVE_INFINITY;
      return majority.expiries[quorumSize - 1]!;
    }
    case "service":
      return labels?.service ?? null;
    default:
      return 0;
  }
}

function compareValues(a: SortValue, b: SortValue): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

/** Every key the walk yields that passes the owner filter, in the query's order. */
async function buildOrder(
  source: SortSource,
  slices: AsyncIterable<readonly string[]>,
  query: LocksQuery,
): Promise<string[]> {
  const sort = query.sort ?? "resource";
  const sign = query.order === "desc" ? -1 : 1;
  const filter = parseOwnerFilter(query.owner ?? "");
  const nowMs = Date.now();
  const entries: Array<{ key: string; value: SortValue }> = [];
  for await (const slice of slices)
    for (const key of slice) {
      const value = sortValueOf(source.reads(key), sort, filter, source.quorumSize, nowMs);
      if (value !== undefined) entries.push({ key, value });
    }
  // Unknowns stay last in either order; ties fall back to the key, so pages stay stable.
  entries.sort((a, b) => {
    if (a.value === null || b.value === null) return compareValues(a.value, b.value);
    return sign * (compareValues(a.value, b.value) || (a.key < b.key ? -1 : 1));
  });
  return entries.map((entry) => entry.key);
}

/** The query's order over the index, reused for ORDER_KEEP_MS (see the file comment). */
export function orderOf(
  owner: object,
  source: SortSource,
  slices: () => AsyncIterable<readonly string[]>,
  query: LocksQuery,
): Promise<readonly string[]> {
  let kept = orders.get(owner);
  if (!kept) orders.set(owner, (kept = new Map()));
  const cacheKey = JSON.stringify([
    query.match ?? "",
    query.state ?? "",
    query.owner ?? "",
    query.sort ?? "resource",
    query.order ?? "asc",
  ]);
  const cached = kept.get(cacheKey);
  if (cached && (cached.keptUntilMs === undefined || Date.now() < cached.keptUntilMs))
    return cached.keys;
  if (kept.size >= ORDERS_KEPT) kept.delete(kept.keys().next().value!);
  const startedMs = Date.now();
  const order: Order = { keys: buildOrder(source, slices(), query) };
  kept.set(cacheKey, order);
  order.keys.then(
    () => {
      const readyMs = Date.now();
      const buildMs = readyMs - startedMs;
      order.keptUntilMs = readyMs + Math.max(ORDER_KEEP_MS, buildMs * ORDER_KEEP_PER_BUILD_MS);
    },
    () => kept.delete(cacheKey),
  );
  return order.keys;
}

/** Whether a query needs the sorted path (any order but the index's, or an owner filter). */
export const isSortedQuery = (query: LocksQuery) =>
  (query.sort !== undefined && query.sort !== "resource") ||
  query.order === "desc" ||
  Boolean(query.owner?.trim());

/** A sorted page's cursor: the position of the next row in the order. */
export const encodeOffset = (offset: number) => `o${offset}`;

export function decodeOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const offset = /^o(\d{1,9})$/.exec(cursor)?.[1];
  if (offset === undefined)
    throw new ApiError("invalid_request", "cursor: is not a cursor returned by this API");
  return Number(offset);
}

/** Rows of the order from `offset`: keys gone since the order was built are skipped. */
export function rowsFrom(
  order: readonly string[],
  offset: number,
  limit: number,
  row: (key: string) => LockRow | null,
): { items: LockRow[]; next: number | null } {
  const items: LockRow[] = [];
  let position = offset;
  for (; position < order.length && items.length < limit; position += 1) {
    const folded = row(order[position]!);
    if (folded) items.push(folded);
  }
  return { items, next: position < order.length ? position : null };
}
