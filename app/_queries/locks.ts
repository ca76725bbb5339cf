"use client";

import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import {
  expiresAtMs,
  MAX_PAGE_LIMIT,
  type LiveLockRow,
  type LocksResponse,
  type LockState,
} from "@/lib/api/locks";
import { apiFetch } from "./api-fetch";
import { useCanRead } from "./session";

export interface LocksFilter {
  /** Redis MATCH glob; empty: every lock. */
  match: string;
  state: LockState | null;
}

export interface LiveLocks extends Omit<LocksResponse, "items" | "nextCursor"> {
  items: LiveLockRow[];
}

/** Enough for the whole snapshot of a busy deployment; beyond it the table says it is capped. */
export const MAX_ROWS = 20_000;

function pageUrl(filter: LocksFilter, cursor: string | null): string {
  const params = new URLSearchParams({ limit: String(MAX_PAGE_LIMIT) });
  if (filter.match) params.set("match", filter.match);
  if (filter.state) params.set("state", filter.state);
  if (cursor) params.set("cursor", cursor);
  return `/api/locks?${params}`;
}

/** Every page of the snapshot for this filter (the table sorts and virtualises client-side). */
export async function fetchLocks(filter: LocksFilter, signal?: AbortSignal): Promise<LiveLocks> {
  let cursor: string | null = null;
  let first: LocksResponse | null = null;
  const items: LiveLockRow[] = [];
  do {
    const page: LocksResponse = await apiFetch<LocksResponse>(pageUrl(filter, cursor), { signal });
    first ??= page;
    // Each page converts with its own serverTime: a later page may come from a newer snapshot.
    for (const row of page.items)
      items.push({ ...row, validUntilMs: expiresAtMs(row.validityMs, page.serverTime) });
    cursor = page.nextCursor;
  } while (cursor && items.length < MAX_ROWS);
  const { nextCursor: _nextCursor, items: _firstItems, ...summary } = first;
  return { ...summary, items };
}

export function locksQueryOptions(filter: LocksFilter) {
  return queryOptions({
    queryKey: ["locks", filter.match, filter.state ?? "any"],
    queryFn: ({ signal }) => fetchLocks(filter, signal),
    // Big snapshots are polled less often: each poll moves every row over the wire.
    refetchInterval: (query) => ((query.state.data?.total ?? 0) > 2_000 ? 5_000 : 2_000),
    placeholderData: keepPreviousData,
  });
}

export function useLocks(filter: LocksFilter) {
  return useQuery({ ...locksQueryOptions(filter), enabled: useCanRead() });
}
