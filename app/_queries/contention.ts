"use client";

import { queryOptions, useQuery } from "@tanstack/react-query";
import type { ContentionResponse, WaitsResponse } from "@/lib/api";
import { apiFetch } from "./api-fetch";
import { useCanRead } from "./session";

/** Who blocks whom: chains and deadlock cycles (served from memory, rebuilt every 200 ms). */
export function fetchContention(signal?: AbortSignal): Promise<ContentionResponse> {
  return apiFetch<ContentionResponse>("/api/contention", { signal });
}

export function contentionQueryOptions() {
  return queryOptions({
    queryKey: ["contention"],
    queryFn: ({ signal }) => fetchContention(signal),
    // A cycle lives for a retry window: poll fast enough to show it while it stands.
    refetchInterval: 1_000,
  });
}

export function useContention() {
  return useQuery({ ...contentionQueryOptions(), enabled: useCanRead() });
}

/** Wait times of the last hour (the series of `resource` only, when given), top blockers, objectives. */
export function fetchWaits(resource: string | null, signal?: AbortSignal): Promise<WaitsResponse> {
  const query = resource === null ? "" : `?resource=${encodeURIComponent(resource)}`;
  return apiFetch<WaitsResponse>(`/api/contention/waits${query}`, { signal });
}

export function waitsQueryOptions(resource: string | null) {
  return queryOptions({
    queryKey: ["contention-waits", resource],
    queryFn: ({ signal }) => fetchWaits(resource, signal),
    refetchInterval: 5_000,
  });
}

export function useWaits(resource: string | null) {
  return useQuery({ ...waitsQueryOptions(resource), enabled: useCanRead() });
}
