"use client";

import { queryOptions, useQuery } from "@tanstack/react-query";
import type { LockResponse } from "@/lib/api/locks";
import { apiFetch } from "./api-fetch";
import { useCanRead } from "./session";

export function lockUrl(resource: string): string {
  return `/api/locks/${encodeURIComponent(resource)}`;
}

export function fetchLock(resource: string, signal?: AbortSignal): Promise<LockResponse> {
  return apiFetch<LockResponse>(lockUrl(resource), { signal });
}

export function lockQueryOptions(resource: string) {
  return queryOptions({
    queryKey: ["lock", resource],
    queryFn: ({ signal }) => fetchLock(resource, signal),
    refetchInterval: 1_000,
  });
}

export function useLock(resource: string) {
  return useQuery({ ...lockQueryOptions(resource), enabled: useCanRead() });
}
