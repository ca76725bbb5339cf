import { describe, expect, it } from "vitest";
import {
  FORCE_CONSEQUENCE,
  holderStateText,
  sessionStateText,
} from "@/components/locks/holder-state-text";
import { formatAgeMs } from "@/components/ui/format";

const NOW = 1_700_000_000_000;

describe("a holder session's state in words", () => {
  it.each([
    [{ state: "alive", lastSeenAt: NOW - 400 }, "holder alive, last heartbeat 0.4 s ago"],
    [
      { state: "unresponsive", lastSeenAt: NOW - 12_300 },
      "holder unresponsive for 12 s (paused, GC or a blocked event loop)",
    ],
    [
      { state: "unresponsive", lastSeenAt: null },
      "holder unresponsive (no heartbeat found on the nodes) (paused, GC or a blocked event loop)",
    ],
    [
      { state: "gone", lastSeenAt: NOW - 90_000 },
      "holder gone (its connections closed and it stopped heartbeating: probably crashed)",
    ],
    [
      { state: "unknown", lastSeenAt: null },
      "holder has no session (another library or session: false)",
    ],
  ] as const)("says %j as %s", (session, text) => {
    expect(holderStateText(session, NOW)).toBe(text);
  });

  it("says the state alone for the sessions view", () => {
    expect(sessionStateText({ state: "alive", lastSeenAt: NOW - 1_000 }, NOW)).toBe(
      "alive, last heartbeat 1.0 s ago",
    );
    expect(sessionStateText({ state: "unknown", lastSeenAt: null }, NOW)).toBe(
      "no session (another library or session: false)",
    );
  });

  it("says what forcing does where it matters", () => {
    expect(FORCE_CONSEQUENCE.unresponsive).toBe("forcing may let two processes act at once");
    // Issue 39 supersedes "the lock is released at once": a gone holder's lock is tombstoned too.
    expect(FORCE_CONSEQUENCE.gone).toBe(
      "forcing still keeps everyone out until its validity ends, in case it runs on",
    );
  });

  it("reads ages with tenths under 10 s, whole seconds under a minute", () => {
    expect(formatAgeMs(-5)).toBe("0.0 s");
    expect(formatAgeMs(420)).toBe("0.4 s");
    expect(formatAgeMs(12_900)).toBe("12 s");
    expect(formatAgeMs(125_000)).toBe("2m 05s");
  });
});
