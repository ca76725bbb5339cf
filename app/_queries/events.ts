"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { EventsResponse, HistoryHorizon, Transition } from "@/lib/api";
import { apiFetch } from "./api-fetch";
import { useCanRead } from "./session";

export interface TransitionFilters {
  match?: string;
  kind?: string;
  owner?: string;
  /** "1": only problems (see isAlarming). */
  problems?: string;
  resource?: string;
  /** A key that is not valid UTF-8, by its bytes (base64). */
  resourceBase64?: string;
  /** Only transitions at or after this instant (epoch ms, as text): the page's time range. */
  since?: string;
}

/** Rows kept in the browser at most; older ones fall off the end. */
const KEPT_MAX = 500;
/** Reconnection backoff: 1 s, 2 s, 4 s … at most 30 s (plus up to 20 % jitter). */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/**
 * Whether the page is live: "connecting" (the stream is opening), "live" (pushed as it happens),
 * "retrying" (the stream was refused or lost: what is shown may be out of date; the next attempt at
 * `retryAt`, console clock of the browser), "off" (no stream: not loaded, or no EventSource).
 */
export type LiveState =
  | { readonly state: "connecting" | "live" | "off" }
  | { readonly state: "retrying"; readonly retryAt: number; readonly attempt: number };

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
  const [live, setLive] = useState<LiveState>({ state: "off" });
  useEffect(() => {
    if (!enabled || !loaded || typeof EventSource === "undefined") return;
    let lastId = queryClient.getQueryData<EventsResponse>(key)?.transitions[0]?.id ?? 0;
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    const update = (change: (data: EventsResponse) => EventsResponse) =>
      queryClient.setQueryData<EventsResponse>(key, (data) => data && change(data));
    // The browser's own EventSource retry gives up for good on a refusal (429, 401, 503): every
    // error is handled here instead, reconnecting with backoff from the last id received.
    const connect = () => {
      setLive({ state: "connecting" });
      const opened = new EventSource(
        `/api/events/stream?${queryString(filters, { after: String(lastId) })}`,
      );
      source = opened;
      opened.addEventListener("open", () => {
        attempt = 0;
        setLive({ state: "live" });
      });
      opened.addEventListener("transition", (event) => {
        const transition = JSON.parse((event as MessageEvent<string>).data) as Transition;
        lastId = Math.max(lastId, transition.id);
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
      opened.addEventListener("horizon", (event) => {
        const horizon = JSON.parse((event as MessageEvent<string>).data) as HistoryHorizon;
        update((data) => ({ ...data, horizon }));
      });
      opened.addEventListener("error", () => {
        opened.close();
        if (source !== opened) return;
        const delayMs = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt);
        const waitMs = Math.round(delayMs * (1 + Math.random() * 0.2));
        attempt += 1;
        setLive({ state: "retrying", retryAt: Date.now() + waitMs, attempt });
        timer = setTimeout(connect, waitMs);
      });
    };
    connect();
    return () => {
      clearTimeout(timer);
      const current = source;
      source = null;
      current?.close();
      setLive({ state: "off" });
    };
    // The stream follows the filters; `key` is derived from them.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [enabled, loaded, filtersKey, limit, queryClient]);
  return { ...query, live };
}
