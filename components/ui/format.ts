/** Display helpers shared by the tables and panels. Pure functions: no React, no clock reads. */

/** "0.8 s", "4.3 s", "2m 05s", "3h 12m". Negative durations read as "0.0 s". */
export function formatDurationMs(durationMs: number): string {
  const ms = Math.max(0, durationMs);
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const totalS = Math.floor(ms / 1_000);
  if (totalS < 3_600) return `${Math.floor(totalS / 60)}m ${String(totalS % 60).padStart(2, "0")}s`;
  const totalM = Math.floor(totalS / 60);
  if (totalM < 1_440) return `${Math.floor(totalM / 60)}h ${String(totalM % 60).padStart(2, "0")}m`;
  return `${Math.floor(totalM / 1_440)}d ${Math.floor((totalM % 1_440) / 60)}h`;
}

/** An age read at a glance: "0.4 s" under 10 s, "12 s" under a minute, then as formatDurationMs. */
export function formatAgeMs(ageMs: number): string {
  const ms = Math.max(0, ageMs);
  if (ms < 10_000) return `${(ms / 1_000).toFixed(1)} s`;
  if (ms < 60_000) return `${Math.floor(ms / 1_000)} s`;
  return formatDurationMs(ms);
}

/** Uptime in the largest sensible unit: "42 s", "17 min", "5 h", "3 d". */
export function formatUptimeS(uptimeS: number): string {
  if (uptimeS < 120) return `${Math.round(uptimeS)} s`;
  if (uptimeS < 7_200) return `${Math.round(uptimeS / 60)} min`;
  if (uptimeS < 172_800) return `${Math.round(uptimeS / 3_600)} h`;
  return `${Math.round(uptimeS / 86_400)} d`;
}

/** Latency with a precision that suits its size: "0.42 ms", "3.1 ms", "120 ms". */
export function formatLatencyMs(latencyMs: number | null): string {
  if (latencyMs === null) return "—";
  if (latencyMs < 1) return `${latencyMs.toFixed(2)} ms`;
  if (latencyMs < 10) return `${latencyMs.toFixed(1)} ms`;
  return `${Math.round(latencyMs)} ms`;
}

/** A 40-hex lock value as "3f9a1c0b…e21d"; short values are shown whole. */
export function shortValue(value: string): string {
  return value.length <= 16 ? value : `${value.slice(0, 8)}…${value.slice(-4)}`;
}

/** Local date and time with seconds, e.g. "2025-11-21 17:42:03". */
export function formatTimestamp(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (part: number) => String(part).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** Clock time only, for chart axes: "17:42:03". */
export function formatClock(epochMs: number): string {
  return formatTimestamp(epochMs).slice(11);
}

/**
 * A duration in words, two units at most: "850 ms", "4.3 s", "12 min 18 s", "2 h 05 min",
 * "3 d 4 h". The one formatter for durations a reader must take in at once (waits, holds, gaps).
 * Negative or non-finite durations read as "0 ms".
 */
export function formatDurationWords(durationMs: number): string {
  const ms = Number.isFinite(durationMs) ? Math.max(0, Math.round(durationMs)) : 0;
  if (ms < 1_000) return `${ms} ms`;
  // Tenths under 10 s, where they still matter; 9.96 s rounds to "10 s", not "10.0 s".
  if (ms < 9_950) return `${(ms / 1_000).toFixed(1)} s`;
  const totalS = Math.round(ms / 1_000);
  if (totalS < 60) return `${totalS} s`;
  if (totalS < 3_600) {
    const s = totalS % 60;
    return s === 0 ? `${totalS / 60} min` : `${Math.floor(totalS / 60)} min ${s} s`;
  }
  const totalM = Math.floor(totalS / 60);
  if (totalM < 1_440) {
    const m = totalM % 60;
    return m === 0
      ? `${totalM / 60} h`
      : `${Math.floor(totalM / 60)} h ${String(m).padStart(2, "0")} min`;
  }
  const h = Math.floor((totalM % 1_440) / 60);
  return h === 0 ? `${Math.floor(totalM / 1_440)} d` : `${Math.floor(totalM / 1_440)} d ${h} h`;
}

/** Which clock a time is shown in: the browser's zone, or UTC. */
export type TimeZoneChoice = "local" | "utc";

/** Date and time with seconds in `zone`: "2025-11-21 17:42:03". */
export function formatTimestampIn(epochMs: number, zone: TimeZoneChoice): string {
  if (zone === "local") return formatTimestamp(epochMs);
  return new Date(epochMs).toISOString().slice(0, 19).replace("T", " ");
}

/** Clock time in `zone`: "17:42:03". */
export function formatClockIn(epochMs: number, zone: TimeZoneChoice): string {
  return formatTimestampIn(epochMs, zone).slice(11);
}

/** The zone's name and offset at `epochMs`: "UTC", "Asia/Kolkata, UTC+05:30". */
export function zoneLabel(zone: TimeZoneChoice, epochMs: number, timeZoneName?: string): string {
  if (zone === "utc") return "UTC";
  const offsetMin = -new Date(epochMs).getTimezoneOffset();
  const sign = offsetMin < 0 ? "−" : "+";
  const abs = Math.abs(offsetMin);
  const offset = `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return timeZoneName ? `${timeZoneName}, ${offset}` : offset;
}
