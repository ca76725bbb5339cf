"use client";

import { useState } from "react";
import { formatTimestampIn, zoneLabel, type TimeZoneChoice } from "@/components/ui/format";

/** The time ranges offered; the API reads them as `since` (epoch ms) fixed when chosen. */
export const TIME_RANGES = [
  { value: "15m", label: "Last 15 min", ms: 15 * 60_000 },
  { value: "1h", label: "Last hour", ms: 60 * 60_000 },
  { value: "24h", label: "Last 24 h", ms: 24 * 60 * 60_000 },
  { value: "", label: "All kept", ms: null },
] as const;

export type TimeRange = (typeof TIME_RANGES)[number]["value"];

export const rangeOf = (text: string | null): TimeRange =>
  TIME_RANGES.find((range) => range.value === text)?.value ?? "";

/** Where the chosen range starts, for the URL's `since`: now minus the range ("" for all). */
export function sinceFor(range: TimeRange, nowMs: number): string {
  const ms = TIME_RANGES.find((choice) => choice.value === range)?.ms ?? null;
  return ms === null ? "" : String(nowMs - ms);
}

/** The browser's zone by name, when it has one. */
const localZoneName = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** "UTC" or "UTC+05:30": the zone as the table's "When" heading names it. */
export const zoneHeading = (zone: TimeZoneChoice, nowMs: number) => zoneLabel(zone, nowMs);

/**
 * The time range (its start said in words, in the zone shown) and the clock the times are in: the
 * browser's zone, named with its offset, or UTC (what the server's sentences and logs use).
 */
export function ViewControls(props: {
  range: TimeRange;
  sinceMs: number | null;
  zone: TimeZoneChoice;
  nowMs: number;
  onRange: (range: TimeRange) => void;
  onZone: (zone: TimeZoneChoice) => void;
}) {
  // The switch answers the click at once: the zone itself comes back from the URL only once the
  // router has replaced it, and a checkbox held to that would stay unchanged meanwhile (a click
  // that "did nothing" on a loaded machine). A new zone from the URL wins (React's pattern for
  // state that follows a prop).
  const [shownZone, setShownZone] = useState(props.zone);
  const [urlZone, setUrlZone] = useState(props.zone);
  if (props.zone !== urlZone) {
    setUrlZone(props.zone);
    setShownZone(props.zone);
  }
  return (
    <div className="row" style={{ flexWrap: "wrap" }}>
      <label className="row">
        Time range
        <select
          value={props.range}
          onChange={(event) => props.onRange(rangeOf(event.target.value))}
        >
          {TIME_RANGES.map((range) => (
            <option key={range.value} value={range.value}>
              {range.label}
            </option>
          ))}
        </select>
      </label>
      <label className="row">
        <input
          type="checkbox"
          checked={shownZone === "utc"}
          onChange={(event) => {
            const zone = event.target.checked ? "utc" : "local";
            setShownZone(zone);
            props.onZone(zone);
          }}
        />
        Show times in UTC
      </label>
      <p className="muted" data-testid="time-zone" style={{ margin: 0 }}>
        Times in {zoneLabel(props.zone, props.nowMs, localZoneName())}
        {props.sinceMs !== null &&
          `; showing transitions since ${formatTimestampIn(props.sinceMs, props.zone)}`}
        .
      </p>
    </div>
  );
}
