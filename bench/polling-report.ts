/** The polling section's table (polling-cost.ts): one line per size and window. */
import { median } from "./stats";

export type PollingPhase = "masters alone" | "first pass, assumed key cost" | "measured pace";

export interface PollingWindow {
  readonly phase: PollingPhase;
  /** Each master's share of one core over the window (INFO cpu, user + sys). */
  readonly sharePerMaster: number[];
  readonly shareMedian: number;
  readonly shareMax: number;
  /** The console's view of each node at the window's end (empty without the console). */
  readonly modes: string[];
  readonly lockKeys: number[];
  readonly perS: number[];
  readonly keyCostUs: number[];
  readonly changesWithinMs: number[];
}

export interface PollingSize {
  readonly keysPerNode: number;
  readonly locksPerNode: number;
  readonly seedS: number;
  readonly firstListingS: number;
  readonly windows: PollingWindow[];
}

const pct = (share: number) => `${(100 * share).toFixed(2)} %`;
const range = (values: readonly number[], format: (value: number) => string) => {
  if (values.length === 0) return "—";
  const [low, high] = [Math.min(...values), Math.max(...values)];
  return low === high ? format(low) : `${format(median(values))} (${format(low)}–${format(high)})`;
};
const count = (value: number) => Math.round(value).toLocaleString("en-US");
const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
const micros = (us: number) => `${us.toFixed(2)} µs`;

export function formatPollingTable(sizes: readonly PollingSize[], windowMs: number): string {
  const header = [
    "keys per master",
    "window",
    "share of a core, median / max",
    "pace keys/s",
    "key cost",
    "changes seen within",
    "modes",
  ];
  const lines = sizes.flatMap((size) =>
    size.windows.map((window) => [
      `${count(size.keysPerNode)} (${count(size.locksPerNode)} locks)`,
      window.phase,
      `${pct(window.shareMedian)} / ${pct(window.shareMax)}`,
      range(window.perS, count),
      range(window.keyCostUs, micros),
      range(window.changesWithinMs, seconds),
      [...new Set(window.modes)].join(",") || "—",
    ]),
  );
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => line[column]!.length)),
  );
  const format = (line: string[]) =>
    `| ${line.map((text, column) => text.padEnd(widths[column]!)).join(" | ")} |`;
  const listings = sizes
    .map(
      (size) =>
        `${count(size.keysPerNode)} keys: seeded in ${size.seedS.toFixed(0)} s, first listing ${size.firstListingS.toFixed(0)} s`,
    )
    .join("; ");
  return [
    `polling, keyspace events off, ${windowMs / 1000} s windows with nothing changing`,
    format(header),
    `| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`,
    ...lines.map(format),
    listings,
  ].join("\n");
}
