"use client";

import { useState } from "react";

/** The largest value seen since `key` last changed (e.g. the longest PTTL of the current holder). */
export function useMaxSeen(key: string | null, value: number): number {
  const [state, setState] = useState({ key, max: value });
  if (state.key !== key || value > state.max) {
    const next = { key, max: state.key !== key ? value : Math.max(state.max, value) };
    setState(next);
    return next.max;
  }
  return state.max;
}
