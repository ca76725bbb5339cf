/**
 * Time as the watch's parts see it, passed in rather than read from globals so that tests drive
 * heartbeats, coalescing, timeouts and backoffs with a fake clock instead of waiting for them.
 */
import { setTimeout as sleep } from "node:timers/promises";

export interface Clock {
  /** Epoch ms. */
  now(): number;
  /** Calls `callback` once after `delayMs`; the function returned cancels it. */
  after(delayMs: number, callback: () => void): () => void;
  /** Calls `callback` every `intervalMs`; the function returned stops it. */
  every(intervalMs: number, callback: () => void): () => void;
  /** Resolves after `delayMs`; rejects with the signal's reason if it aborts first. */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(delayMs, callback) {
    const timer = setTimeout(callback, delayMs);
    return () => clearTimeout(timer);
  },
  every(intervalMs, callback) {
    const timer = setInterval(callback, intervalMs);
    return () => clearInterval(timer);
  },
  sleep: (delayMs, signal) => sleep(delayMs, undefined, { signal }),
};
