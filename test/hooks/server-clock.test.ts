import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { observeServerTime, serverNow } from "@/hooks/server-clock";

describe("server clock", () => {
  // A frozen clock: the offsets below are exact, however long the machine takes between readings.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("keeps the largest offset seen, so an old snapshot's serverTime cannot pull countdowns back", () => {
    const receivedAtMs = Date.now();
    observeServerTime(receivedAtMs + 5_000, receivedAtMs); // server 5 s ahead
    observeServerTime(receivedAtMs + 3_000, receivedAtMs); // a snapshot 2 s old: smaller, ignored
    expect(serverNow() - Date.now()).toBe(5_000);
  });

  it("ignores a serverTime that is not a number", () => {
    const before = serverNow() - Date.now();
    observeServerTime(Number.NaN);
    expect(serverNow() - Date.now()).toBe(before);
  });
});
