import { describe, expect, it } from "vitest";
import {
  formatDurationMs,
  formatLatencyMs,
  formatUptimeS,
  shortValue,
} from "@/components/ui/format";

describe("format", () => {
  it("formats durations with tenths under a minute, then minutes, hours and days", () => {
    expect(formatDurationMs(-5)).toBe("0.0 s");
    expect(formatDurationMs(850)).toBe("0.8 s");
    expect(formatDurationMs(4_349)).toBe("4.3 s");
    expect(formatDurationMs(125_000)).toBe("2m 05s");
    expect(formatDurationMs(3 * 3_600_000 + 12 * 60_000)).toBe("3h 12m");
    expect(formatDurationMs(2 * 86_400_000 + 3_600_000)).toBe("2d 1h");
  });

  it("shortens 40-hex values but keeps short ones whole", () => {
    expect(shortValue("0123456789abcdef0123456789abcdef01234567")).toBe("01234567…4567");
    expect(shortValue("short")).toBe("short");
  });

  it("formats latency and uptime in readable units", () => {
    expect(formatLatencyMs(null)).toBe("—");
    expect(formatLatencyMs(0.4236)).toBe("0.42 ms");
    expect(formatLatencyMs(3.14)).toBe("3.1 ms");
    expect(formatLatencyMs(120.4)).toBe("120 ms");
    expect(formatUptimeS(42)).toBe("42 s");
    expect(formatUptimeS(17 * 60)).toBe("17 min");
  });
});
