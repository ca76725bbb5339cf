/** The end-of-run table (ours vs each peer, with ratios) and bench/results/latest.json. */
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { LIBRARIES, type LibraryName } from "./peers";
import { round } from "./stats";

/** One row: a metric measured for each library; `higherIsBetter` orients the ratio. */
export interface Row {
  readonly scenario: string;
  readonly metric: string;
  readonly values: Partial<Record<LibraryName, number>>;
  readonly higherIsBetter: boolean;
}

/** How many times better ours is than `peer` (> 1 = ours better), whatever the metric's direction. */
export function advantage(row: Row, peer: LibraryName): number {
  const ours = row.values.ours;
  const theirs = row.values[peer];
  if (ours === undefined || theirs === undefined || ours === 0 || theirs === 0) return Number.NaN;
  return row.higherIsBetter ? ours / theirs : theirs / ours;
}

const cell = (value: number | undefined) =>
  value === undefined ? "-" : String(round(value, value >= 100 ? 0 : 3));
const ratioCell = (value: number) => (Number.isFinite(value) ? `${round(value, 2)}x` : "-");

export function formatTable(rows: readonly Row[]): string {
  const peers = LIBRARIES.filter((library) => library !== "ours");
  const header = ["scenario", "metric", ...LIBRARIES, ...peers.map((peer) => `ours vs ${peer}`)];
  const lines = rows.map((row) => [
    row.scenario,
    `${row.metric} ${row.higherIsBetter ? "(higher better)" : "(lower better)"}`,
    ...LIBRARIES.map((library) => cell(row.values[library])),
    ...peers.map((peer) => ratioCell(advantage(row, peer))),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => line[column]!.length)),
  );
  const format = (line: string[]) =>
    line
      .map((text, column) =>
        column < 2 ? text.padEnd(widths[column]!) : text.padStart(widths[column]!),
      )
      .join("  ");
  return [
    format(header),
    widths.map((width) => "-".repeat(width)).join("  "),
    ...lines.map(format),
  ].join("\n");
}

export function machineInfo(redisVersion: string) {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model ?? "unknown",
    cores: cpus.length,
    totalMemoryGb: round(os.totalmem() / 1024 ** 3, 1),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    redis: redisVersion,
    loadAverageAtEnd: os.loadavg().map((load) => round(load, 2)),
  };
}

export function writeResults(file: string, content: object): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    `${JSON.stringify(content, (_key, value: unknown) => (typeof value === "number" ? round(value, 4) : value), 2)}\n`,
  );
}
