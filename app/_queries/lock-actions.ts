"use client";

import { useMutation, useQueryClient, type QueryClient } from "@tanstack/react-query";
import type {
  AcquireRequest,
  ExtendRequest,
  ForceReleaseRequest,
  ForceReleaseResponse,
  LockGrantResponse,
  ReleaseRequest,
  ReleaseResponse,
} from "@/lib/api/actions";
import { apiFetch } from "./api-fetch";

/** Every action changes locks, writes an audit entry and feeds the latency history. */
function refreshAfterAction(queryClient: QueryClient): Promise<unknown> {
  return Promise.all(
    [["locks"], ["lock"], ["audit"], ["latency"]].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
  );
}

export function useAcquire() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: AcquireRequest) => apiFetch<LockGrantResponse>("/api/locks", { method: "POST", body: request }),
    onSettled: () => refreshAfterAction(queryClient),
  });
}

export function useExtend() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: ExtendRequest) =>
      apiFetch<LockGrantResponse>("/api/locks/extend", { method: "POST", body: request }),
    onSettled: () => refreshAfterAction(queryClient),
  });
}

export function useRelease() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: ReleaseRequest) =>
      apiFetch<ReleaseResponse>("/api/locks/release", { method: "POST", body: request }),
    onSettled: () => refreshAfterAction(queryClient),
  });
}

export function useForceRelease() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: ForceReleaseRequest) =>
      apiFetch<ForceReleaseResponse>("/api/locks/force-release", { method: "POST", body: request }),
    onSettled: () => refreshAfterAction(queryClient),
  });
}
