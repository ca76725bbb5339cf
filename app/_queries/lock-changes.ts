"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useCanRead } from "./session";

/**
 * Re-fetches after a change at most this often per 1,000 rows loaded (at least once per
 * REFETCH_GAP_MIN_MS): a burst of changes costs one read of the page, not one each, and a table
 * scrolled far (many rows loaded) is re-read less often than the first 200 rows.
 */
const REFETCH_GAP_MS_PER_1000_ROWS = 1_000;
const REFETCH_GAP_MIN_MS = 400;
/** Reconnection backoff: 1 s, 2 s, 4 s … at most 30 s. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/**
 * Keeps the overview's page current from the server's change stream (the Events page's SSE,
 * filtered by the same pattern): each acquisition, extension, release or expiry re-fetches the
 * page shown, so an extension shows within a second and an idle tab moves no rows at all.
 * Returns whether the stream is open; while it is not, the page polls as before.
 */
export function useLockChanges(match: string, rowsLoaded: number): boolean {
  const queryClient = useQueryClient();
  const enabled = useCanRead();
  const [live, setLive] = useState(false);
  // Read by the stream's handler: a new row count must not reopen the stream.
  const gapMs = useRef(REFETCH_GAP_MIN_MS);
  useEffect(() => {
    gapMs.current = Math.max(
      REFETCH_GAP_MIN_MS,
      (rowsLoaded / 1_000) * REFETCH_GAP_MS_PER_1000_ROWS,
    );
  }, [rowsLoaded]);
  useEffect(() => {
    if (!enabled || typeof EventSource === "undefined") return;
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let refetch: ReturnType<typeof setTimeout> | undefined;
    let lastRefetchMs = 0;
    let attempt = 0;
    const changed = () => {
      if (refetch !== undefined) return;
      const waitMs = Math.max(0, lastRefetchMs + gapMs.current - Date.now());
      refetch = setTimeout(() => {
        refetch = undefined;
        lastRefetchMs = Date.now();
        // A hidden tab fetches nothing: the page is only marked stale, and read when shown again.
        const hidden = document.visibilityState === "hidden";
        void queryClient.invalidateQueries({
          queryKey: ["locks"],
          refetchType: hidden ? "none" : "active",
        });
      }, waitMs);
    };
    const connect = () => {
      const params = new URLSearchParams(match ? { match } : {});
      const opened = new EventSource(`/api/events/stream?${params}`);
      source = opened;
      opened.addEventListener("open", () => {
        attempt = 0;
        setLive(true);
        // What changed while the stream was closed is not replayed: read the page once.
        changed();
      });
      opened.addEventListener("transition", changed);
      // The browser's own retry gives up for good on a refusal (429, 401): retry here, with backoff.
      opened.addEventListener("error", () => {
        opened.close();
        if (source !== opened) return;
        setLive(false);
        retry = setTimeout(connect, Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt++));
      });
    };
    connect();
    return () => {
      clearTimeout(retry);
      clearTimeout(refetch);
      const current = source;
      source = null;
      current?.close();
      setLive(false);
    };
  }, [enabled, match, queryClient]);
  return live;
}
