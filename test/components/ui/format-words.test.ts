/** Issue 41 item 5: durations in words, one formatter for every page (components/ui/format.ts). */
import { describe, expect, it } from "vitest";
import { formatDurationWords, formatTimestampIn, zoneLabel } from "@/components/ui/format";

describe("formatDurationWords", () => {
  it.each([
    [-5, "0 ms"],
    [Number.NaN, "0 ms"],
    [0, "0 ms"],
    [850, "850 ms"],
    [999.6, "1.0 s"],
    [4_349, "4.3 s"],
    [9_949, "9.9 s"],
    [9_960, "10 s"],
    [42_400, "42 s"],
    [59_600, "1 min"],
    [60_000, "1 min"],
    [738_658, "12 min 19 s"],
    [12 * 60_000 + 18_000, "12 min 18 s"],
    [3_599_400, "59 min 59 s"],
    [3_600_000, "1 h"],
    [2 * 3_600_000 + 5 * 60_000 + 40_000, "2 h 05 min"],
    [24 * 3_600_000, "1 d"],
    [3 * 86_400_000 + 4 * 3_600_000 + 59 * 60_000, "3 d 4 h"],
  ])("%s ms reads %s", (durationMs, words) => {
    expect(formatDurationWords(durationMs)).toBe(words);
  });
});

describe("times in a chosen zone", () => {
  it("formats UTC from the instant, whatever the machine's zone", () => {
    expect(formatTimestampIn(Date.UTC(2026, 10, 27, 9, 5, 7), "utc")).toBe("2026-11-27 09:05:07");
    expect(zoneLabel("utc", 0)).toBe("UTC");
  });

  it("names the local zone with its offset", () => {
    expect(zoneLabel("local", Date.UTC(2026, 0, 1), "Somewhere")).toMatch(
      /^Somewhere, UTC[+−]\d\d:\d\d$/,
    );
  });
});
