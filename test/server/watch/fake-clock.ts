/**
 * A clock for the watch's parts that moves only when a test says so: `advance(ms)` runs every timer
 * due on the way, in order, letting the promise callbacks they start run in between.
 */
import type { Clock } from "@/lib/server/locks/watch/io/clock";

interface Timer {
  atMs: number;
  readonly order: number;
  readonly intervalMs: number | null;
  readonly callback: () => void;
  cancelled: boolean;
}

/** Lets every promise callback queued so far (and those they queue) run. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

export class FakeClock implements Clock {
  nowMs: number;
  #timers: Timer[] = [];
  #order = 0;

  constructor(nowMs = 1_700_000_000_000) {
    this.nowMs = nowMs;
  }

  now(): number {
    return this.nowMs;
  }

  after(delayMs: number, callback: () => void): () => void {
    return this.#add(delayMs, null, callback);
  }

  every(intervalMs: number, callback: () => void): () => void {
    return this.#add(intervalMs, intervalMs, callback);
  }

  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const cancel = this.after(delayMs, resolve);
      signal?.addEventListener("abort", () => (cancel(), reject(signal.reason)), { once: true });
    });
  }

  /** Moves time on by `ms`, firing what falls due. */
  async advance(ms: number): Promise<void> {
    const endMs = this.nowMs + ms;
    await settle();
    for (let next = this.#due(endMs); next; next = this.#due(endMs)) {
      this.nowMs = next.atMs;
      if (next.intervalMs === null) next.cancelled = true;
      else next.atMs += next.intervalMs;
      next.callback();
      await settle();
    }
    this.nowMs = endMs;
    await settle();
  }

  #add(delayMs: number, intervalMs: number | null, callback: () => void): () => void {
    const timer: Timer = {
      atMs: this.nowMs + delayMs,
      order: this.#order++,
      intervalMs,
      callback,
      cancelled: false,
    };
    this.#timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  #due(endMs: number): Timer | undefined {
    this.#timers = this.#timers.filter((timer) => !timer.cancelled);
    const due = this.#timers.filter((timer) => timer.atMs <= endMs);
    return due.sort((a, b) => a.atMs - b.atMs || a.order - b.order)[0];
  }
}
