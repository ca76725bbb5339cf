"use client";

import { queryOptions, useQuery } from "@tanstack/react-query";
import type { AuditResponse } from "@/lib/api";
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

/** The audit page's filters (`GET /api/audit`'s query): person, resource, time, one entry's id. */
export interface AuditFilters {
  readonly person?: string;
  readonly resource?: string;
  readonly since?: number;
  readonly until?: number;
  readonly id?: string;
}

export function fetchAuditSearch(
  limit: number,
  filters: AuditFilters,
  signal?: AbortSignal,
): Promise<AuditResponse> {
  const query = new URLSearchParams({ limit: String(limit) });
  for (const [name, value] of Object.entries(filters)) {
    if (value !== undefined && value !== "") query.set(name, String(value));
  }
  return apiFetch<AuditResponse>(`/api/audit?${query.toString()}`, { signal });
}

export function useAuditSearch(limit: number, filters: AuditFilters) {
  return useQuery({
    queryKey: ["audit", limit, filters],
    queryFn: ({ signal }) => fetchAuditSearch(limit, filters, signal),
    refetchInterval: 5_000,
    enabled: useCanRead(),
  });
}
