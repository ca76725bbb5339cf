import "server-only";
/**
 * Contention, wired: the wait tracker follows the live index's changes (no read of its own), and
 * every TICK_MS it charges blame, ends lapsed waits, builds the wait-for graph, finds chains and
 * cycles, counts cycle episodes and sets the gauges. Every LIVENESS_INTERVAL_MS it asks the nodes
 * about the sessions that have waited longest (at most LIVENESS_BATCH, each one GET and PTTL per
 * node): a contender proven gone stops waiting then, not when its entry lapses.
 */
import type { ContentionResponse } from "@/lib/api";
import { MAX_CHAINS_LISTED, MAX_CYCLES_LISTED, MAX_WAITS_LISTED } from "@/lib/api";
import type { Registry } from "prom-client";
import type { ConsoleConfig } from "../config";
import type { IndexHandler, LiveIndex } from "../locks/rows/live-index";
import { logger } from "../logger";
import type { ConsoleNode } from "../node-registry";
import { Episodes } from "./episodes";
import { buildGraph, type WaitGraph } from "./graph";
import { defineContentionMetrics } from "./metrics";
import { ObjectiveTracker } from "./objectives";
import { endGoneWaits, probeAbsentLocks } from "./node-reads";
import { detectionBoundMs, emptyGraph, participantsNamed, TICK_MS } from "./response";
import { findPaths, type Paths } from "./paths";
import { listWaits } from "./wait-list";
import { serviceOfLabels, WaitStats } from "./wait-stats";
import { WaitTracker } from "./wait-tracker";

const LIVENESS_INTERVAL_MS = 2_000;

export interface Contention {
  /**
   * What the tracker hears of the index: every key's latest change (registered by the composition
   * root with a "coalesced" queue: a wait only needs the key's newest reads).
   */
  readonly indexHandler: IndexHandler;
  graph(): ContentionResponse;
  readonly stats: WaitStats;
  readonly objectives: ObjectiveTracker;
  /** Runs one tick now (tests: no wait for the timer). */
  tick(nowMs?: number): void;
  close(): void;
}

export interface ContentionOptions {
  readonly index: LiveIndex;
  readonly nodes: readonly ConsoleNode[];
  readonly config: Pick<ConsoleConfig, "waitObjectives" | "metricsServices" | "metricsMaxServices">;
  readonly registry: Registry;
  readonly deadlineMs: number;
}

export function createContention(options: ContentionOptions): Contention {
  const { index, nodes } = options;
  const { metric, serviceLabel } = defineContentionMetrics(options.registry, {
    pinned: options.config.metricsServices,
    maxServices: options.config.metricsMaxServices,
  });
  const stats = new WaitStats();
  const objectives = new ObjectiveTracker(options.config.waitObjectives, (name, good) =>
    metric.objectiveWaits.inc({ objective: name, outcome: good ? "good" : "bad" }),
  );
  for (const objective of options.config.waitObjectives)
    metric.objectiveTarget.set({ objective: objective.name }, objective.target);
  const tracker = new WaitTracker({
    ended: (ended) => {
      const completed = stats.record(ended);
      if (!completed) return;
      metric.waitSeconds.observe(
        { service: serviceLabel(completed.service) },
        completed.durationMs / 1000,
      );
      objectives.record(completed);
    },
    blamed: (holder, resource, waitMs, nowMs) => {
      stats.blame(holder, resource, waitMs, nowMs);
      metric.waitCaused.inc(
        { service: serviceLabel(serviceOfLabels(holder.labels)) },
        waitMs / 1000,
      );
    },
  });
  const indexHandler: IndexHandler = {
    change: (change) => tracker.update(change.key, change.reads, change.atMs),
  };
  const episodes = new Episodes(() => metric.episodes.inc());
  let latest: ContentionResponse = emptyGraph(Date.now());

  let built: {
    version: number;
    graph: WaitGraph;
    paths: Paths;
    waitList: ContentionResponse["waitList"];
  } | null = null;
  const tick = (nowMs = Date.now()) => {
    tracker.sweep(nowMs);
    // The graph changes only when a wait starts or ends or a holder changes: rebuilt only then.
    if (built?.version !== tracker.version) {
      const graph = buildGraph(tracker.locks());
      built = {
        version: tracker.version,
        graph,
        paths: findPaths(graph, MAX_CHAINS_LISTED),
        waitList: listWaits(tracker.locks(), MAX_WAITS_LISTED),
      };
    }
    const { graph, paths, waitList } = built;
    const cycles = episodes.observe(paths.cycles, nowMs).map(({ cycle, episode }) => ({
      ...cycle,
      episodeId: episode.id,
      firstSeenAt: episode.firstSeenMs,
    }));
    latest = {
      serverTime: nowMs,
      chains: paths.chains.map((chain) => ({
        ...chain,
        longestWaitMs: Math.max(0, nowMs - chain.oldestSinceMs),
      })),
      chainsTotal: paths.chainsTotal,
      cycles: cycles.slice(0, MAX_CYCLES_LISTED),
      participants: participantsNamed(graph, [
        ...paths.chains,
        ...cycles.slice(0, MAX_CYCLES_LISTED),
      ]),
      waits: graph.waits,
      waitList,
      cycleEpisodesTotal: episodes.total,
      detectionBoundMs: detectionBoundMs(index, nowMs),
      partial: !index.complete || index.truncated,
    };
    metric.cycles.set(paths.cycles.length);
    metric.longestChain.set(paths.chains[0]?.sessions.length ?? 0);
    for (const status of objectives.status(nowMs))
      for (const [window, rate] of Object.entries(status.burnRate))
        metric.burnRate.set({ objective: status.name, window }, rate ?? 0);
  };

  let probing = false;
  const probeAbsent = () => probeAbsentLocks(tracker, nodes, options.deadlineMs);
  const checkLiveness = () => endGoneWaits(tracker, nodes, options.deadlineMs);

  const ticker = setInterval(() => {
    tick();
    if (probing) return;
    probing = true;
    probeAbsent()
      .catch((error: unknown) => logger.warn({ error: String(error) }, "contention: probe failed"))
      .finally(() => (probing = false));
  }, TICK_MS);
  ticker.unref();
  let checking = false;
  const liveness = setInterval(() => {
    if (checking) return;
    checking = true;
    checkLiveness()
      .catch((error: unknown) =>
        logger.warn({ error: String(error) }, "contention: liveness check failed"),
      )
      .finally(() => (checking = false));
  }, LIVENESS_INTERVAL_MS);
  liveness.unref();
  return {
    indexHandler,
    graph: () => latest,
    stats,
    objectives,
    tick,
    close: () => {
      clearInterval(ticker);
      clearInterval(liveness);
    },
  };
}
