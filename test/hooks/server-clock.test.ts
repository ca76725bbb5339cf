import { describe, expect, it } from "vitest";
import { observeServerTime, serverNow } from "@/hooks/server-clock";

describe("server clock", () => {
  it("keeps the largest offset seen, so an old snapshot's serverTime cannot pull countdowns back", () => {
    const receivedAtMs = Date.now();
    observeServerTime(receivedAtMs + 5_000, receivedAtMs); // server 5 s ahead
    observeServerTime(receivedAtMs + 3_000, receivedAtMs); // a snapshot 2 s old: smaller, ignored
    const offsetMs = serverNow() - Date.now();
    expect(offsetMs).toBeGreaterThanOrEqual(4_990);
    expect(offsetMs).toBeLessThanOrEqual(5_010);
  });

  it("ignores a serverTime that is not a number", () => {
    const before = serverNow() - Date.now();
    observeServerTime(Number.NaN);
    expect(Math.abs(serverNow() - Date.now() - before)).toBeLessThan(20);
  });
});
