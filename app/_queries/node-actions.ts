"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { KeyspaceEventsRequest, KeyspaceEventsResponse } from "@/lib/api";
import { apiFetch } from "./api-fetch";

const keyspaceEventsPath = (nodeId: string) =>
  `/api/nodes/${encodeURIComponent(nodeId)}/keyspace-events`;

const postKeyspaceEvents = (nodeId: string, request: KeyspaceEventsRequest) =>
  apiFetch<KeyspaceEventsResponse>(keyspaceEventsPath(nodeId), { method: "POST", body: request });

/** What turning events on would run on the node (its flags read now); changes nothing. */
export const useKeyspaceEventsPreview = (nodeId: string) =>
  useMutation({ mutationFn: () => postKeyspaceEvents(nodeId, { preview: true }) });

/**
 * The node card's admin action: CONFIG SET the flags the node lacks. Either way the node report
 * (its mode: watching once relisted) and the audit trail (an entry either way) are refetched.
 */
export function useTurnOnKeyspaceEvents(nodeId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => postKeyspaceEvents(nodeId, {}),
    onSettled: () =>
      Promise.all(
        [["nodes"], ["audit"]].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      ),
  });
}
