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
    [["locks"], ["lock"], ["audit"], ["latency"]].map((queryKey) =>
      queryClient.invalidateQueries({ queryKey }),
    ),
  );
}

/** A POST action on `path`; on success or failure, what it may have changed is refetched. */
function useLockAction<Request, Response>(path: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: Request) => apiFetch<Response>(path, { method: "POST", body: request }),
    onSettled: () => refreshAfterAction(queryClient),
  });
}

export const useAcquire = () => useLockAction<AcquireRequest, LockGrantResponse>("/api/locks");
export const useExtend = () => useLockAction<ExtendRequest, LockGrantResponse>("/api/locks/extend");
export const useRelease = () =>
  useLockAction<ReleaseRequest, ReleaseResponse>("/api/locks/release");
export const useForceRelease = () =>
  useLockAction<ForceReleaseRequest, ForceReleaseResponse>("/api/locks/force-release");
