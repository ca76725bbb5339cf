"use client";

import { queryOptions, useQuery } from "@tanstack/react-query";
import type { ContentionResponse, WaitsResponse } from "@/lib/api/contention";
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

/** Wait times of the last hour, top blockers and objectives. */
export function fetchWaits(signal?: AbortSignal): Promise<WaitsResponse> {
  return apiFetch<WaitsResponse>("/api/contention/waits", { signal });
}

export function waitsQueryOptions() {
  return queryOptions({
    queryKey: ["contention-waits"],
    queryFn: ({ signal }) => fetchWaits(signal),
    refetchInterval: 5_000,
  });
}

export function useWaits() {
  return useQuery({ ...waitsQueryOptions(), enabled: useCanRead() });
}
