/** The relist loop: which listing runs next, when, and after a failure. No Redis. */
import { describe, expect, it } from "vitest";
import type { ListingReason } from "@/lib/api";
import { RelistLoop } from "@/lib/server/locks/watch/list/relist-loop";
import { FakeClock } from "./fake-clock";

function loopOf() {
  const clock = new FakeClock();
  const closing = new AbortController();
  const state = { reachable: true, resyncWanted: true, failures: 0 };
  const listed: ListingReason[] = [];
  let release = () => {};
  let held: Promise<void> | null = null;
  const loop = new RelistLoop({
    clock,
    signal: closing.signal,
    address: "fake:6379",
    reachable: () => state.reachable,
    resyncWanted: () => state.resyncWanted,
    list: async (reason) => {
      listed.push(reason);
      if (state.failures > 0) {
        state.failures -= 1;
        throw new Error("connection closed");
      }
      await held;
    },
    retryReason: () => "reconnect",
  });
  /** Holds the next listings until release(). */
  const hold = () => (held = new Promise<void>((resolve) => (release = resolve)));
  void loop.run();
  return { clock, closing, state, listed, loop, hold, release: () => (release(), (held = null)) };
}

describe("the relist loop", () => {
  it("lists once per request, for its reason", async () => {
    const { clock, listed, loop } = loopOf();
    loop.request("start");
    await clock.advance(0);
    loop.request("resync");
    await clock.advance(0);
    expect(listed).toEqual(["start", "resync"]);
  });

  it("never lets a resync or a poll replace a pending relist after a gap", async () => {
    const { clock, listed, loop, hold, release } = loopOf();
    hold();
    loop.request("start");
    await clock.advance(0);
    loop.request("overflow");
    loop.request("resync");
    loop.request("poll");
    release();
    await clock.advance(0);
    expect(listed).toEqual(["start", "overflow"]);
  });

  it("skips a resync that is not wanted (not watching, or a listing runs)", async () => {
    const { clock, state, listed, loop } = loopOf();
    state.resyncWanted = false;
    loop.request("resync");
    await clock.advance(0);
    expect(listed).toEqual([]);
  });

  it("waits while the node does not answer, and lists once woken", async () => {
    const { clock, state, listed, loop } = loopOf();
    state.reachable = false;
    loop.request("reconnect");
    await clock.advance(0);
    expect(listed).toEqual([]);
    state.reachable = true;
    loop.wake();
    await clock.advance(0);
    expect(listed).toEqual(["reconnect"]);
  });

  it("retries a failed listing after a second's backoff", async () => {
    const { clock, state, listed, loop } = loopOf();
    state.failures = 1;
    loop.request("resync");
    await clock.advance(999);
    expect(listed).toEqual(["resync"]);
    await clock.advance(1);
    expect(listed).toEqual(["resync", "reconnect"]);
  });

  it("stops when the watch closes", async () => {
    const { clock, closing, listed, loop } = loopOf();
    closing.abort();
    loop.wake();
    loop.request("start");
    await clock.advance(0);
    expect(listed).toEqual([]);
  });
});
