"use client";

import { queryOptions, useQuery } from "@tanstack/react-query";
import type { NodesResponse } from "@/lib/api";
import { apiFetch } from "./api-fetch";
import { useCanRead } from "./session";

export const NODES_POLL_MS = 2_000;

export function fetchNodes(signal?: AbortSignal): Promise<NodesResponse> {
  return apiFetch<NodesResponse>("/api/nodes", { signal });
}

export function nodesQueryOptions() {
  return queryOptions({
    queryKey: ["nodes"],
    queryFn: ({ signal }) => fetchNodes(signal),
    refetchInterval: NODES_POLL_MS,
  });
}

export function useNodes() {
  return useQuery({ ...nodesQueryOptions(), enabled: useCanRead() });
}
