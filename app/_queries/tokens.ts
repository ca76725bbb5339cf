"use client";

import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type {
  CreateTokenRequest,
  CreateTokenResponse,
  RevokeTokenResponse,
  TokensResponse,
} from "@/lib/api";
import { apiFetch } from "./api-fetch";
import { useSession } from "./session";

export type TokenOwners = "mine" | "all";

export const fetchTokens = (owner: TokenOwners, signal?: AbortSignal) =>
  apiFetch<TokensResponse>(`/api/tokens?owner=${owner}`, { signal });

export const tokensQueryOptions = (owner: TokenOwners) =>
  queryOptions({
    queryKey: ["tokens", owner],
    queryFn: ({ signal }) => fetchTokens(owner, signal),
    refetchInterval: 30_000,
  });

/** Only with a credential: anonymous readers have no tokens. */
export function useTokens(owner: TokenOwners) {
  const authenticated = useSession().data?.authenticated === true;
  return useQuery({ ...tokensQueryOptions(owner), enabled: authenticated });
}

export function useCreateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: CreateTokenRequest) =>
      apiFetch<CreateTokenResponse>("/api/tokens", { method: "POST", body: request }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["tokens"] }),
  });
}

export function useRevokeToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiFetch<RevokeTokenResponse>(`/api/tokens/${id}`, { method: "DELETE" }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["tokens"] }),
  });
}
