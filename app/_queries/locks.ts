"use client";

import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import {
  expiresAtMs,
  MAX_PAGE_LIMIT,
  type LiveLockRow,
  type LockSort,
  type LocksResponse,
  type LockState,
  type SortOrder,
} from "@/lib/api";
import { apiFetch } from "./api-fetch";
import { useCanRead } from "./session";

export interface LocksFilter {
  /** Redis MATCH glob; empty: every lock. */
  match: string;
  state: LockState | null;
  /** Owner label filter ("service=billing", or a bare label name); empty: none. The server applies it. */
  owner: string;
  sort: LockSort;
  order: SortOrder;
}

export interface LiveLocks extends Omit<LocksResponse, "items" | "nextCursor"> {
  items: LiveLockRow[];
  /** True when rows after these exist (the table asks for them when scrolled to). */
  hasMore: boolean;
}

/** Rows asked for at first, and added each time the table is scrolled near the last one loaded. */
export const ROWS_STEP = 200;
/** The most rows the table loads; beyond it the table says so (narrow the pattern or re-sort). */
export const MAX_ROWS = 20_000;
/** While the change stream is open it tells of every change: a poll then only refreshes counts. */
const POLL_LIVE_MS = 60_000;

function pageUrl(filter: LocksFilter, limit: number, cursor: string | null): string {
  const params = new URLSearchParams({ limit: String(limit) });
  if (filter.match) params.set("match", filter.match);
  if (filter.state) params.set("state", filter.state);
  if (filter.owner) params.set("owner", filter.owner);
  if (filter.sort !== "resource") params.set("sort", filter.sort);
  if (filter.order !== "asc") params.set("order", filter.order);
  if (cursor) params.set("cursor", cursor);
  return `/api/locks?${params}`;
}

/** The first `wanted` rows in the server's order (it sorts and filters every lock of its index). */
export async function fetchLocks(
  filter: LocksFilter,
  wanted: number,
  signal?: AbortSignal,
): Promise<LiveLocks> {
  let cursor: string | null = null;
  let first: LocksResponse | null = null;
  const items: LiveLockRow[] = [];
  do {
    const limit = Math.min(MAX_PAGE_LIMIT, wanted - items.length);
    const page: LocksResponse = await apiFetch<LocksResponse>(pageUrl(filter, limit, cursor), {
      signal,
    });
    first ??= page;
    // Each page converts with its own serverTime: a later page may come from a newer snapshot.
    for (const row of page.items)
      items.push({ ...row, validUntilMs: expiresAtMs(row.validityMs, page.serverTime) });
    cursor = page.nextCursor;
  } while (cursor && items.length < wanted);
  const { nextCursor: _nextCursor, items: _firstItems, ...summary } = first;
  return { ...summary, items, hasMore: cursor !== null };
}

/** `live`: the change stream is open (useLockChanges), so polling is only a slow safety net. */
export function locksQueryOptions(filter: LocksFilter, wanted: number, live: boolean) {
  return queryOptions({
    queryKey: ["locks", filter, wanted],
    queryFn: ({ signal }) => fetchLocks(filter, wanted, signal),
    refetchInterval: live ? POLL_LIVE_MS : 2_000,
    placeholderData: keepPreviousData,
  });
}

export function useLocks(filter: LocksFilter, wanted: number, live: boolean) {
  return useQuery({ ...locksQueryOptions(filter, wanted, live), enabled: useCanRead() });
}
