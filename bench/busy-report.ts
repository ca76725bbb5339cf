/** The busy-app section's table: medians over runs with their spread, and the targets' verdicts. */
import { median, percentile } from "./stats";

export type Phase = "app alone" | "events + bare subscriber" | "console" | "console, no learning";
export const PHASES: readonly Phase[] = [
  "app alone",
  "events + bare subscriber",
  "console",
  "console, no learning",
];
export interface PhaseFigures {
  writesPerS: number;
  cpuMsPer1kWrites: number;
  /** Console phases: write → visible of new locks (ms), and listings started in the window. */
  visibleMs?: number[];
  relists?: number;
}

export interface BusyScenario {
  readonly name: string;
  readonly runs: Array<Record<Phase, PhaseFigures>>;
}

const fixed = (value: number, digits = 1) =>
  Number.isFinite(value) ? value.toFixed(digits) : String(value);
const spread = (values: readonly number[], digits = 1) =>
  `${fixed(median(values), digits)} (${fixed(Math.min(...values), digits)}–${fixed(Math.max(...values), digits)})`;

/** Per run: how much more the masters spend with `phase` than with the events' own cost, in %. */
const overEvents = (scenario: BusyScenario, phase: Phase) =>
  scenario.runs.map(
    (run) =>
      100 * (run[phase].cpuMsPer1kWrites / run["events + bare subscriber"].cpuMsPer1kWrites - 1),
  );

export interface BusySummary {
  readonly scenario: string;
  readonly consoleOverEventsPct: number;
  readonly visibleP50Ms: number;
  readonly visibleP99Ms: number;
  readonly visibleMaxMs: number;
  readonly relists: number;
}

export function summarize(scenarios: readonly BusyScenario[]): BusySummary[] {
  return scenarios.map((scenario) => {
    const visible = scenario.runs.flatMap((run) => run.console.visibleMs ?? []);
    return {
      scenario: scenario.name,
      consoleOverEventsPct: median(overEvents(scenario, "console")),
      visibleP50Ms: median(visible),
      visibleP99Ms: percentile(visible, 99),
      visibleMaxMs: Math.max(...visible),
      relists: scenario.runs.reduce((sum, run) => sum + (run.console.relists ?? 0), 0),
    };
  });
}

/** A markdown table, one row per scenario and phase, then a line per scenario on the targets. */
export function formatBusyTable(scenarios: readonly BusyScenario[]): string {
  const lines = [
    "| application | phase | writes/s achieved | masters' CPU ms per 1,000 writes, median (min–max) | over the events' own cost |",
    "| --- | --- | ---: | ---: | ---: |",
  ];
  for (const scenario of scenarios) {
    for (const phase of PHASES) {
      const cpu = scenario.runs.map((run) => run[phase].cpuMsPer1kWrites);
      const writes = scenario.runs.map((run) => run[phase].writesPerS);
      const over = phase.startsWith("console") ? `${spread(overEvents(scenario, phase), 0)} %` : "";
      lines.push(
        `| ${scenario.name} | ${phase} | ${Math.round(median(writes)).toLocaleString()} | ${spread(cpu, 2)} | ${over} |`,
      );
    }
  }
  for (const summary of summarize(scenarios)) {
    lines.push(
      `\n${summary.scenario}, console: ${summary.consoleOverEventsPct >= 0 ? "+" : ""}${fixed(summary.consoleOverEventsPct, 0)} % over the events' own cost (target ≤ 15 %); new locks visible p50 ${fixed(summary.visibleP50Ms)} ms, p99 ${fixed(summary.visibleP99Ms)} ms, max ${fixed(summary.visibleMaxMs)} ms (target < 1,000 ms); listings during the windows: ${summary.relists}`,
    );
  }
  return lines.join("\n");
}
