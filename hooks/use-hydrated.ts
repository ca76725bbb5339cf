"use client";

import { useSyncExternalStore } from "react";

const noSubscription = () => () => undefined;

/**
 * False during the server render and while hydrating, true afterwards. Query data can arrive
 * before a lazily hydrated Suspense boundary hydrates; gating on this keeps the first client render
 * identical to the server's HTML.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
