"use client";

import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { LoginRequest, SessionResponse, SignOutResponse } from "@/lib/api";
import { apiFetch } from "./api-fetch";

export function fetchSession(signal?: AbortSignal): Promise<SessionResponse> {
  return apiFetch<SessionResponse>("/api/session", { signal });
}

export function sessionQueryOptions() {
  return queryOptions({
    queryKey: ["session"],
    queryFn: ({ signal }) => fetchSession(signal),
    // A session expires on the server; re-check now and then so the UI stops offering actions.
    refetchInterval: 60_000,
  });
}

export function useSession() {
  return useQuery(sessionQueryOptions());
}

/** Whether read queries may run: open reads, or a sign-in. */
export function useCanRead(): boolean {
  const { data } = useSession();
  return Boolean(data && (data.publicRead || data.authenticated));
}

export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: LoginRequest) =>
      apiFetch<SessionResponse>("/api/session", { method: "POST", body: request }),
    onSuccess: (session) => {
      queryClient.setQueryData(sessionQueryOptions().queryKey, session);
      void queryClient.invalidateQueries();
    },
  });
}

/**
 * Ends the sign-in (a person's or a break-glass one) on every replica; then, when the provider
 * offers RP-initiated logout, the browser goes there to end the provider's sign-in too.
 */
export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiFetch<SignOutResponse>("/api/auth/sign-out", { method: "POST", body: {} }),
    onSuccess: ({ endSessionUrl }) => {
      if (endSessionUrl) window.location.assign(endSessionUrl);
    },
    onSettled: () => queryClient.invalidateQueries(),
  });
}
