import "server-only";
/**
 * Pages of the shared snapshot for `GET /api/locks`: the match/state filter, a cursor that names the
 * last key shown (so paging stays stable while the snapshot refreshes), and values cut short.
 * Filtering a large snapshot is CPU work on the one event loop every request shares, so it runs in
 * slices that yield between them, and its result is kept per snapshot so that paging through it
 * (or ten viewers sending the same pattern) filters once.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import {
  LIST_VALUE_MAX_CHARS,
  type LockRow,
  type LocksQuery,
  type LocksResponse,
  type NodeHolder,
} from "@/lib/api";
import { ApiError } from "../errors";
import { compileGlob } from "./glob";
import type { Snapshot, SnapshotRow } from "./snapshot";

/** Longest stretch of filtering between two yields to other requests, in ms. */
const FILTER_SLICE_MS = 5;
/** Filter results kept per snapshot (distinct match/state pairs); a snapshot lives ~1 s. */
const FILTERS_PER_SNAPSHOT = 16;

const filterCache = new WeakMap<Snapshot, Map<string, Promise<readonly SnapshotRow[]>>>();

async function filterRows(
  rows: readonly SnapshotRow[],
  query: LocksQuery,
): Promise<readonly SnapshotRow[]> {
  if (!query.match && !query.state) return rows;
  const matches = query.match ? compileGlob(query.match) : () => true;
  const kept: SnapshotRow[] = [];
  let sliceStartMs = performance.now();
  for (let index = 0; index < rows.length; index += 1) {
    const { row } = rows[index]!;
    if ((!query.state || row.state === query.state) && matches(row.resource))
      kept.push(rows[index]!);
    if ((index & 255) === 255 && performance.now() - sliceStartMs > FILTER_SLICE_MS) {
      await yieldToEventLoop();
      sliceStartMs = performance.now();
    }
  }
  return kept;
}

function filtered(snapshot: Snapshot, query: LocksQuery): Promise<readonly SnapshotRow[]> {
  let cache = filterCache.get(snapshot);
  if (!cache) filterCache.set(snapshot, (cache = new Map()));
  const key = JSON.stringify([query.match ?? "", query.state ?? ""]);
  let result = cache.get(key);
  if (!result) {
    if (cache.size >= FILTERS_PER_SNAPSHOT) cache.delete(cache.keys().next().value!);
    result = filterRows(snapshot.rows, query);
    cache.set(key, result);
  }
  return result;
}

/** A value longer than LIST_VALUE_MAX_CHARS, cut (never inside a surrogate pair), and its length. */
function shortened(value: string | null): { value: string | null; valueLength?: number } {
  if (value === null || value.length <= LIST_VALUE_MAX_CHARS) return { value };
  let cut = value.slice(0, LIST_VALUE_MAX_CHARS);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return { value: cut, valueLength: value.length };
}

/** A row for a list: values past LIST_VALUE_MAX_CHARS cut, so one huge value cannot bloat a page. */
function listRow(row: LockRow): LockRow {
  const long = (value: string | null) => value !== null && value.length > LIST_VALUE_MAX_CHARS;
  if (!long(row.value) && !row.nodes.some((node) => long(node.value))) return row;
  return {
    ...row,
    ...shortened(row.value),
    nodes: row.nodes.map((node): NodeHolder => ({ ...node, ...shortened(node.value) })),
  };
}

const encodeCursor = (sortKey: string) => Buffer.from(sortKey, "latin1").toString("base64url");

function decodeCursor(cursor: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor))
    throw new ApiError("invalid_request", "cursor: is not a cursor returned by this API");
  return Buffer.from(cursor, "base64url").toString("latin1");
}

/** One page of the snapshot after the match/state filters. */
export async function pageOf(snapshot: Snapshot, query: LocksQuery): Promise<LocksResponse> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const rows = await filtered(snapshot, query);
  let start = 0;
  if (after !== undefined) {
    let high = rows.length;
    while (start < high) {
      const middle = (start + high) >> 1;
      if (rows[middle]!.sortKey <= after) start = middle + 1;
      else high = middle;
    }
  }
  const page = rows.slice(start, start + query.limit);
  const hasMore = start + query.limit < rows.length;
  return {
    serverTime: snapshot.serverTime,
    scanMs: snapshot.scanMs,
    items: page.map(({ row }) => listRow(row)),
    nextCursor: hasMore ? encodeCursor(page.at(-1)!.sortKey) : null,
    total: rows.length,
    counts: snapshot.counts,
    unreachableNodes: snapshot.unreachableNodes,
    truncated: snapshot.truncated,
  };
}
