"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { EventsResponse, HistoryHorizon, Transition } from "@/lib/api/timeline";
import { apiFetch } from "./api-fetch";
import { useCanRead } from "./session";

export interface TransitionFilters {
  match?: string;
  kind?: string;
  owner?: string;
  resource?: string;
}

/** Rows kept in the browser at most; older ones fall off the end. */
const KEPT_MAX = 500;

function queryString(filters: TransitionFilters, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...filters, ...extra }))
    if (value) params.set(name, value);
  return params.toString();
}

/**
 * Transitions matching `filters`, newest first: one page from /api/events, then pushed live by the
 * server-sent event stream (resumed after the newest id the page had). No polling: the server
 * pushes from memory, and no viewer costs the nodes a read.
 */
export function useTransitions(filters: TransitionFilters, limit = 200) {
  const queryClient = useQueryClient();
  const enabled = useCanRead();
  const key = ["events", filters, limit] as const;
  const query = useQuery({
    queryKey: key,
    queryFn: ({ signal }) =>
      apiFetch<EventsResponse>(`/api/events?${queryString(filters, { limit: String(limit) })}`, {
        signal,
      }),
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const loaded = query.data !== undefined;
  const filtersKey = JSON.stringify(filters);
  useEffect(() => {
    if (!enabled || !loaded || typeof EventSource === "undefined") return;
    const newestId = queryClient.getQueryData<EventsResponse>(key)?.transitions[0]?.id ?? 0;
    const source = new EventSource(
      `/api/events/stream?${queryString(filters, { after: String(newestId) })}`,
    );
    const update = (change: (data: EventsResponse) => EventsResponse) =>
      queryClient.setQueryData<EventsResponse>(key, (data) => data && change(data));
    source.addEventListener("transition", (event) => {
      const transition = JSON.parse((event as MessageEvent<string>).data) as Transition;
      update((data) =>
        data.transitions.some((known) => known.id === transition.id)
          ? data
          : {
              ...data,
              serverTime: Math.max(data.serverTime, transition.at),
              transitions: [transition, ...data.transitions].slice(0, KEPT_MAX),
            },
      );
    });
    source.addEventListener("horizon", (event) => {
      const horizon = JSON.parse((event as MessageEvent<string>).data) as HistoryHorizon;
      update((data) => ({ ...data, horizon }));
    });
    return () => source.close();
    // The stream follows the filters; `key` is derived from them.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [enabled, loaded, filtersKey, limit, queryClient]);
  return query;
}
