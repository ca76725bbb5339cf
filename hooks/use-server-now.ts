"use client";

import { useSyncExternalStore } from "react";
import { serverNow } from "./server-clock";

/**
 * One requestAnimationFrame loop shared by every countdown on the page. Components re-render only
 * when the time, floored to `stepMs`, changes; rAF pauses by itself in hidden tabs.
 */
const listeners = new Set<() => void>();
let frame = 0;

function loop(): void {
  listeners.forEach((listener) => listener());
  frame = requestAnimationFrame(loop);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (listeners.size === 1) frame = requestAnimationFrame(loop);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) cancelAnimationFrame(frame);
  };
}

/** The server's current time in epoch ms, floored to `stepMs`; null during the server render. */
export function useServerNow(stepMs = 100): number | null {
  return useSyncExternalStore(
    subscribe,
    () => Math.floor(serverNow() / stepMs) * stepMs,
    () => null,
  );
}
