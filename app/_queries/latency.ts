"use client";

import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import type { LatencyResponse } from "@/lib/api";
import { apiFetch } from "./api-fetch";
import { useCanRead } from "./session";

/** `window` as the API takes it: "5m", "15m", "1h"… */
export function fetchLatency(window: string, signal?: AbortSignal): Promise<LatencyResponse> {
  return apiFetch<LatencyResponse>(`/api/latency?window=${encodeURIComponent(window)}`, { signal });
}

export function latencyQueryOptions(window: string) {
  return queryOptions({
    queryKey: ["latency", window],
    queryFn: ({ signal }) => fetchLatency(window, signal),
    refetchInterval: 3_000,
    placeholderData: keepPreviousData,
  });
}

export function useLatency(window: string) {
  return useQuery({ ...latencyQueryOptions(window), enabled: useCanRead() });
}
