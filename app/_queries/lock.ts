"use client";

import { queryOptions, useQuery } from "@tanstack/react-query";
import type { LockResponse } from "@/lib/api";
import { apiFetch } from "./api-fetch";
import { useCanRead } from "./session";

/** `keyBase64Url`: the key's exact bytes, for keys a name cannot address (see resource-key.ts). */
export function lockUrl(resource: string, keyBase64Url?: string): string {
  return keyBase64Url === undefined
    ? `/api/locks/${encodeURIComponent(resource)}`
    : `/api/locks/${keyBase64Url}?encoding=base64`;
}

export function fetchLock(
  resource: string,
  keyBase64Url?: string,
  signal?: AbortSignal,
): Promise<LockResponse> {
  return apiFetch<LockResponse>(lockUrl(resource, keyBase64Url), { signal });
}

export function lockQueryOptions(resource: string, keyBase64Url?: string) {
  return queryOptions({
    queryKey: ["lock", resource, keyBase64Url ?? null],
    queryFn: ({ signal }) => fetchLock(resource, keyBase64Url, signal),
    refetchInterval: 1_000,
  });
}

export function useLock(resource: string, keyBase64Url?: string) {
  return useQuery({ ...lockQueryOptions(resource, keyBase64Url), enabled: useCanRead() });
}
