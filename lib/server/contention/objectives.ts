/**
 * Wait-time objectives (CONSOLE_WAIT_OBJECTIVES): which completed waits each one covers, how many
 * were good (ended within thresholdMs) or bad, per minute for the last six hours, and the error
 * budget's burn rate over 1 h and 6 h: (bad share) / (1 − target). A burn rate of 1 spends the budget
 * exactly over the objective's window; 14.4 over 1 h spends 2% of a 30-day budget in that hour.
 * The 30-day compliance itself is Prometheus's to compute from the exported counters (the console
 * keeps six hours in memory).
 */
import type { WaitObjective } from "../wait-objectives-config";
import { compileGlob } from "../locks/read/glob";
import type { CompletedWait } from "./wait-stats";

const MINUTE_MS = 60_000;
export const BURN_WINDOWS = { "1h": 3_600_000, "6h": 21_600_000 } as const;
export type BurnWindow = keyof typeof BURN_WINDOWS;

export interface ObjectiveStatus extends WaitObjective {
  readonly waits1h: number;
  readonly bad1h: number;
  readonly burnRate: Record<BurnWindow, number | null>;
}

interface Tracked {
  readonly objective: WaitObjective;
  readonly matches: (wait: CompletedWait) => boolean;
  /** Minute → [good, bad]. */
  readonly minutes: Map<number, [number, number]>;
}

export class ObjectiveTracker {
  readonly #tracked: Tracked[];

  constructor(
    objectives: readonly WaitObjective[],
    private readonly counted: (name: string, good: boolean) => void = () => undefined,
  ) {
    this.#tracked = objectives.map((objective) => {
      const glob = objective.match === undefined ? null : compileGlob(objective.match);
      return {
        objective,
        matches: (wait) =>
          (glob === null || glob(wait.resource)) &&
          (objective.service === undefined || wait.service === objective.service),
        minutes: new Map(),
      };
    });
  }

  record(wait: CompletedWait): void {
    const minute = Math.floor(wait.endMs / MINUTE_MS);
    for (const { objective, matches, minutes } of this.#tracked) {
      if (!matches(wait)) continue;
      const good = wait.durationMs <= objective.thresholdMs;
      const counts = minutes.get(minute) ?? [0, 0];
      counts[good ? 0 : 1] += 1;
      minutes.set(minute, counts);
      this.counted(objective.name, good);
    }
  }

  status(nowMs: number): ObjectiveStatus[] {
    const oldest = Math.floor((nowMs - BURN_WINDOWS["6h"]) / MINUTE_MS);
    return this.#tracked.map(({ objective, minutes }) => {
      for (const minute of minutes.keys()) if (minute < oldest) minutes.delete(minute);
      const within = (windowMs: number) => {
        const from = Math.floor((nowMs - windowMs) / MINUTE_MS);
        let good = 0;
        let bad = 0;
        for (const [minute, counts] of minutes)
          if (minute > from) [good, bad] = [good + counts[0], bad + counts[1]];
        return { total: good + bad, bad };
      };
      const burn = (windowMs: number) => {
        const { total, bad } = within(windowMs);
        return total === 0 ? null : bad / total / (1 - objective.target);
      };
      const hour = within(BURN_WINDOWS["1h"]);
      return {
        ...objective,
        waits1h: hour.total,
        bad1h: hour.bad,
        burnRate: { "1h": burn(BURN_WINDOWS["1h"]), "6h": burn(BURN_WINDOWS["6h"]) },
      };
    });
  }
}
