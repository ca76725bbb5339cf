"use client";

import { queryOptions, useQuery } from "@tanstack/react-query";
import type { HolderSessionResponse } from "@/lib/api";
import { apiFetch } from "./api-fetch";
import { useCanRead } from "./session";

/** One holder session: its liveness read fresh from the nodes, its locks and its waits. */
export function fetchHolderSession(
  sessionId: string,
  signal?: AbortSignal,
): Promise<HolderSessionResponse> {
  return apiFetch<HolderSessionResponse>(`/api/sessions/${encodeURIComponent(sessionId)}`, {
    signal,
  });
}

export function holderSessionQueryOptions(sessionId: string) {
  return queryOptions({
    queryKey: ["holder-session", sessionId],
    queryFn: ({ signal }) => fetchHolderSession(sessionId, signal),
    refetchInterval: 2_000,
  });
}

export function useHolderSession(sessionId: string) {
  return useQuery({ ...holderSessionQueryOptions(sessionId), enabled: useCanRead() });
}
