"use client";

import { queryOptions, useQuery } from "@tanstack/react-query";
import type { AuditResponse } from "@/lib/api/audit";
import { apiFetch } from "./api-fetch";
import { useCanRead } from "./session";

export function fetchAudit(limit: number, signal?: AbortSignal): Promise<AuditResponse> {
  return apiFetch<AuditResponse>(`/api/audit?limit=${limit}`, { signal });
}

export function auditQueryOptions(limit: number) {
  return queryOptions({
    queryKey: ["audit", limit],
    queryFn: ({ signal }) => fetchAudit(limit, signal),
    refetchInterval: 5_000,
  });
}

/** `refetchIntervalMs`: poll faster while waiting for an entry (e.g. a revoke's follow-up). */
export function useAudit(limit: number, refetchIntervalMs?: number) {
  return useQuery({
    ...auditQueryOptions(limit),
    ...(refetchIntervalMs === undefined ? {} : { refetchInterval: refetchIntervalMs }),
    enabled: useCanRead(),
  });
}
