"use client";

import { queryOptions, useQuery } from "@tanstack/react-query";
import type { HolderSessionsResponse } from "@/lib/api";
import { apiFetch } from "./api-fetch";
import { useCanRead } from "./session";

/** Every live holder session (the processes holding locks; not the console's login). */
export function fetchHolderSessions(signal?: AbortSignal): Promise<HolderSessionsResponse> {
  return apiFetch<HolderSessionsResponse>("/api/sessions", { signal });
}

export function holderSessionsQueryOptions() {
  return queryOptions({
    queryKey: ["holder-sessions"],
    queryFn: ({ signal }) => fetchHolderSessions(signal),
    // The server serves one read to every viewer for a while: polling faster gains nothing.
    refetchInterval: 2_000,
  });
}

export function useHolderSessions() {
  return useQuery({ ...holderSessionsQueryOptions(), enabled: useCanRead() });
}
