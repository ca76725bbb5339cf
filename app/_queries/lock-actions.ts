"use client";

import { useMutation, useQueryClient, type QueryClient } from "@tanstack/react-query";
import type {
  AcquireRequest,
  ExtendRequest,
  ForceReleaseRequest,
  ForceReleaseResponse,
  HolderSessionReleaseRequest,
  HolderSessionReleaseResponse,
  LockGrantResponse,
  ReleaseRequest,
  ReleaseResponse,
  RevokeRequest,
  RevokeResponse,
} from "@/lib/api";
import { apiFetch } from "./api-fetch";

/**
 * Every action changes locks (and so what holder sessions hold), writes an audit entry and feeds
 * the latency history.
 */
function refreshAfterAction(queryClient: QueryClient): Promise<unknown> {
  return Promise.all(
    [["locks"], ["lock"], ["holder-sessions"], ["holder-session"], ["audit"], ["latency"]].map(
      (queryKey) => queryClient.invalidateQueries({ queryKey }),
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
/** Ask the holder to release (202): it answers by the deadline, which the audit trail records. */
export const useRevoke = () => useLockAction<RevokeRequest, RevokeResponse>("/api/locks/revoke");
/** Release everything one holder session holds; `preview: true` only says what would be done. */
export const useReleaseHolderSession = (sessionId: string) =>
  useLockAction<HolderSessionReleaseRequest, HolderSessionReleaseResponse>(
    `/api/sessions/${sessionId}/release`,
  );
