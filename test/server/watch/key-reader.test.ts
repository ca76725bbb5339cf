/**
 * The key reader dates what it read from when the answer came: the node took the PTTL between the
 * read going out and its answer, so answer + PTTL is the latest the key can expire, never earlier.
 * Dated at sending, a read that waited 11 ms on a loaded CI put the expiry 11 ms early, and the
 * expired hold's session was read sooner than SESSION_CHECK_DELAY_MS after the real expiry.
 */
import { describe, expect, it } from "vitest";
import type { NodeKeyState } from "@/lib/server/locks/read/key-state";
import { createBudget } from "@/lib/server/locks/watch/io/budget";
import { KeyReader } from "@/lib/server/locks/watch/store/key-reader";
import { FakeClock } from "./fake-clock";

describe("KeyReader", () => {
  it("dates a read from its answer: a read answered 11 ms after it went out expires 11 ms later", async () => {
    const clock = new FakeClock();
    const sentAtMs: number[] = [];
    const put: Array<{ name: string; readAtMs: number }> = [];
    const state: NodeKeyState = {
      value: "a".repeat(40),
      pttlMs: 1_000,
      format: "string",
      holdCount: null,
    };
    const reader = new KeyReader({
      readKeys: async (keys, nowMs) => {
        sentAtMs.push(nowMs);
        clock.nowMs += 11; // the node answers 11 ms later; its PTTL was taken in between
        return { states: keys.map(() => state), present: keys.map(() => true), touchedBytes: 40 };
      },
      budget: createBudget(1_000),
      clock,
      signal: new AbortController().signal,
      store: {
        get: () => undefined,
        put: (name, _read, readAtMs) => void put.push({ name, readAtMs }),
        remove: () => undefined,
      },
      takeEvents: () => ({ cause: undefined, sets: 1 }),
    });
    const startMs = clock.nowMs;
    expect(await reader.read([Buffer.from("lock:a")])).toBe(1);
    expect(sentAtMs).toEqual([startMs]);
    expect(put).toEqual([{ name: "lock:a", readAtMs: startMs + 11 }]);
  });
});
