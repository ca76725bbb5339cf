import "server-only";
/**
 * The contention metrics, in the console's registry, every label bounded: cycles now and episodes
 * counted once each; the longest chain; wait durations and wait caused by owner `service` (bounded
 * as the timeline's metrics: metric-services.ts); objective
 * waits by outcome and burn rates by objective name (configured, at most 50) and window (2).
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { MetricServices, type MetricServicesOptions } from "../metric-services";

/** 5 ms … 5 min: a wait behind a request-long lock up to one behind a job. */
const WAIT_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export function defineContentionMetrics(
  registry: Registry,
  services: Pick<MetricServicesOptions, "pinned" | "maxServices">,
) {
  const registers = [registry];
  const metric = {
    cycles: new Gauge({
      name: "redlock_console_deadlock_cycles",
      help: "Deadlock cycles in the wait-for graph now.",
      registers,
    }),
    episodes: new Counter({
      name: "redlock_console_deadlock_episodes_total",
      help: "Deadlock cycle episodes (a cycle that keeps re-forming within 10 s counts once).",
      registers,
    }),
    longestChain: new Gauge({
      name: "redlock_console_wait_chain_longest",
      help: "Participants in the longest wait chain now (0: nobody waits).",
      registers,
    }),
    waitSeconds: new Histogram({
      name: "redlock_console_wait_duration_seconds",
      help: "Completed waits (acquired, gave up, or session gone), by the contender's owner service label.",
      labelNames: ["service"],
      buckets: WAIT_BUCKETS_S,
      registers,
    }),
    waitCaused: new Counter({
      name: "redlock_console_wait_caused_seconds_total",
      help: "Wait that holders made others spend, by the holder's owner service label.",
      labelNames: ["service"],
      registers,
    }),
    objectiveWaits: new Counter({
      name: "redlock_console_wait_objective_waits_total",
      help: "Waits covered by each wait-time objective, good (within its threshold) or bad.",
      labelNames: ["objective", "outcome"],
      registers,
    }),
    objectiveTarget: new Gauge({
      name: "redlock_console_wait_objective_target",
      help: "The share of waits each wait-time objective wants within its threshold (e.g. 0.99): the burn-rate alerts divide by 1 minus it.",
      labelNames: ["objective"],
      registers,
    }),
    burnRate: new Gauge({
      name: "redlock_console_wait_objective_burn_rate",
      help: "Error-budget burn rate of each wait-time objective over 1h and 6h (1: spends the budget exactly over its window).",
      labelNames: ["objective", "window"],
      registers,
    }),
  };
  const serviceLabels = new MetricServices({
    ...services,
    onDisplaced: (service) => {
      metric.waitSeconds.remove({ service });
      metric.waitCaused.remove({ service });
    },
  });
  return { metric, serviceLabel: (service: string) => serviceLabels.label(service) };
}
export type ContentionMetrics = ReturnType<typeof defineContentionMetrics>;
