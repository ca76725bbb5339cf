import "server-only";
/**
 * Pages of the live index for `GET /api/locks`: the match/state filter, a cursor that names the last
 * key shown (so paging stays stable while rows change), and values cut short. A page walks the
 * index's ordered rows from the cursor and folds only the rows it shows; a glob walks only the range
 * of its literal prefix, and its total is counted once per index version.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import {
  LIST_VALUE_MAX_CHARS,
  type LockRow,
  type LocksQuery,
  type LocksResponse,
  type NodeHolder,
} from "@/lib/api";
import { ApiError } from "../../errors";
import { compileGlob } from "../read/glob";
import type { LiveIndex } from "../rows/live-index";
import {
  decodeOffset,
  encodeOffset,
  isSortedQuery,
  orderOf,
  rowsFrom,
  type SortSource,
} from "./sorted-page";

/** Longest stretch of counting a filter's total between two yields to other requests, in ms. */
const FILTER_SLICE_MS = 5;
/** Keys one slice hands out at most: a page needs at most MAX_PAGE_LIMIT + 1. */
const SLICE_KEYS_MAX = 1_024;
/** Filtered totals kept (distinct match/state pairs), each valid for one index version. */
const TOTALS_KEPT = 16;

const totalsCache = new WeakMap<RowSource, Map<string, { version: number; total: number }>>();

/**
 * The literal start of a glob (before its first `*`, `?`, `[` or `\`), as the latin1 string of its
 * UTF-8 bytes: every matching key sorts at or after it and starts with it, so only that range is walked.
 */
function literalPrefix(glob: string): string {
  const special = glob.search(/[*?[\\]/);
  const literal = special === -1 ? glob : glob.slice(0, special);
  return Buffer.from(literal, "utf8").toString("latin1");
}

/** What pages are cut from: the live index (LiveIndex implements it). */
export type RowSource = Pick<
  LiveIndex,
  | "keysFrom"
  | "total"
  | "row"
  | "counts"
  | "version"
  | "sweep"
  | "unreachableNodes"
  | "truncated"
  | "listing"
> &
  // Sorted pages and the owner filter read each row's per-node states (sorted-page.ts).
  Partial<SortSource>;

// eslint-disable-next-line no-control-regex -- control characters are valid in keys and ASCII
const ASCII = /^[\x00-\x7f]*$/;
const decodeName = (key: string) => Buffer.from(key, "latin1").toString("utf8");

/**
 * Row keys of the query's state tree after `after` that match its glob, in order, stopping past the
 * glob's literal prefix. The walk yields to other requests every FILTER_SLICE_MS (a hostile glob
 * may match nothing in 250,000 rows) and resumes after the last key it saw, so rows changing in
 * between never invalidate it.
 */
async function* matchingKeys(
  index: RowSource,
  query: LocksQuery,
  after: string | undefined,
): AsyncGenerator<string> {
  for await (const slice of matchingSlices(index, query, after)) yield* slice;
}

/** matchingKeys a slice at a time: what walks every key (a sort) pays one await per slice, not per key. */
async function* matchingSlices(
  index: RowSource,
  query: LocksQuery,
  after: string | undefined,
): AsyncGenerator<string[]> {
  const prefix = query.match ? literalPrefix(query.match) : "";
  const matches = query.match ? compileGlob(query.match) : undefined;
  let last = after;
  for (;;) {
    const from = last !== undefined && last > prefix ? last : prefix;
    const sliceStartMs = performance.now();
    // Each slice walks the tree synchronously and hands its keys out after the walk, so a change to
    // the tree while the consumer works (or while this yields) never meets a live tree iterator.
    const slice: string[] = [];
    let walked = 0;
    let ended = true;
    for (const key of index.keysFrom(from, query.state)) {
      if (key === last) continue;
      if (!key.startsWith(prefix)) break;
      last = key;
      if (!matches || matches(ASCII.test(key) ? key : decodeName(key))) slice.push(key);
      if (slice.length >= SLICE_KEYS_MAX) {
        ended = false;
        break;
      }
      if ((++walked & 255) === 0 && performance.now() - sliceStartMs > FILTER_SLICE_MS) {
        ended = false;
        break;
      }
    }
    yield slice;
    if (ended) return;
    await yieldToEventLoop();
  }
}

/** Rows matching the query across all pages: a tree size without a glob, else a walk of its range. */
async function totalOf(index: RowSource, query: LocksQuery): Promise<number> {
  if (!query.match) return index.total(query.state);
  let cache = totalsCache.get(index);
  if (!cache) totalsCache.set(index, (cache = new Map()));
  const cacheKey = JSON.stringify([query.match, query.state ?? ""]);
  const cached = cache.get(cacheKey);
  if (cached?.version === index.version) return cached.total;
  const version = index.version;
  let total = 0;
  for await (const _key of matchingKeys(index, query, undefined)) total += 1;
  if (cache.size >= TOTALS_KEPT) cache.delete(cache.keys().next().value!);
  // Counted while rows changed: exact as of the end of the walk only for the rows it passed since.
  cache.set(cacheKey, { version, total });
  return total;
}

/**
 * A value longer than LIST_VALUE_MAX_CHARS, cut (never inside a surrogate pair), and its length
 * (the size on the node when the read had cut it already).
 */
function shortened(
  value: string | null,
  valueLength: number | undefined,
): { value: string | null; valueLength?: number } {
  if (value === null || value.length <= LIST_VALUE_MAX_CHARS) return { value };
  let cut = value.slice(0, LIST_VALUE_MAX_CHARS);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return { value: cut, valueLength: valueLength ?? value.length };
}

/** A row for a list: values past LIST_VALUE_MAX_CHARS cut, so one huge value cannot bloat a page. */
function listRow(row: LockRow): LockRow {
  const long = (value: string | null) => value !== null && value.length > LIST_VALUE_MAX_CHARS;
  if (!long(row.value) && !row.nodes.some((node) => long(node.value))) return row;
  return {
    ...row,
    ...shortened(row.value, row.valueLength),
    nodes: row.nodes.map((node): NodeHolder => ({
      ...node,
      ...shortened(node.value, node.valueLength),
    })),
  };
}

const encodeCursor = (sortKey: string) => Buffer.from(sortKey, "latin1").toString("base64url");

function decodeCursor(cursor: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor))
    throw new ApiError("invalid_request", "cursor: is not a cursor returned by this API");
  return Buffer.from(cursor, "base64url").toString("latin1");
}

/** The parts of a page every order shares: counts, listing, the time it took. */
function pageAround(
  index: RowSource,
  startedAt: number,
  page: Pick<LocksResponse, "serverTime" | "items" | "nextCursor" | "total">,
): LocksResponse {
  return {
    ...page,
    counts: index.counts(),
    unreachableNodes: index.unreachableNodes(),
    truncated: index.truncated,
    listing: index.listing(),
    scanMs: Math.round(performance.now() - startedAt),
  };
}

/** A page in a sorted order, or owner-filtered: cut from the query's order (sorted-page.ts). */
async function sortedPageOf(
  index: RowSource,
  query: LocksQuery,
  startedAt: number,
): Promise<LocksResponse> {
  const offset = decodeOffset(query.cursor);
  if (!index.reads || index.quorumSize === undefined)
    throw new Error("sorted pages need an index that reads per-node states");
  const source: SortSource = { reads: index.reads.bind(index), quorumSize: index.quorumSize };
  const order = await orderOf(index, source, () => matchingSlices(index, query, undefined), query);
  const serverTime = Date.now();
  index.sweep(serverTime);
  const { items, next } = rowsFrom(order, offset, query.limit, (key) => {
    const row = index.row(key, serverTime);
    return row && listRow(row);
  });
  const nextCursor = next === null ? null : encodeOffset(next);
  return pageAround(index, startedAt, { serverTime, items, nextCursor, total: order.length });
}

/** One page of the index after the match/state filters: O(page) rows folded, totals from the trees. */
export async function pageOf(index: RowSource, query: LocksQuery): Promise<LocksResponse> {
  const startedAt = performance.now();
  if (isSortedQuery(query)) return sortedPageOf(index, query, startedAt);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const serverTime = Date.now();
  index.sweep(serverTime);
  const items: LockRow[] = [];
  let lastKey: string | undefined;
  let hasMore = false;
  for await (const key of matchingKeys(index, query, after)) {
    if (items.length === query.limit) {
      hasMore = true;
      break;
    }
    const row = index.row(key, serverTime);
    if (!row) continue;
    items.push(listRow(row));
    lastKey = key;
  }
  return pageAround(index, startedAt, {
    serverTime,
    items,
    nextCursor: hasMore && lastKey !== undefined ? encodeCursor(lastKey) : null,
    total: await totalOf(index, query),
  });
}
