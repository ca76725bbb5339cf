import "server-only";
/**
 * Contention, wired: the wait tracker follows the live index's changes (no read of its own), and
 * every TICK_MS it charges blame, ends lapsed waits, builds the wait-for graph, finds chains and
 * cycles, counts cycle episodes and sets the gauges. Every LIVENESS_INTERVAL_MS it asks the nodes
 * about the sessions that have waited longest (at most LIVENESS_BATCH, each one GET and PTTL per
 * node): a contender proven gone stops waiting then, not when its entry lapses.
 */
import type { ContentionResponse } from "@/lib/api";
import { MAX_CHAINS_LISTED, MAX_CYCLES_LISTED } from "@/lib/api";
import type { Registry } from "prom-client";
import type { ConsoleConfig } from "../config";
import type { LiveIndex } from "../locks/rows/live-index";
import { logger } from "../logger";
import type { ConsoleNode } from "../node-registry";
import { deriveLiveness } from "../sessions/liveness";
import { readSessions } from "../sessions/read-session";
import { Episodes } from "./episodes";
import { buildGraph, participantOf, type WaitGraph } from "./graph";
import { defineContentionMetrics } from "./metrics";
import { ObjectiveTracker } from "./objectives";
import { PROBED_PER_TICK, probeWaiters } from "./probe-waiters";
import { findPaths, type Paths } from "./paths";
import { serviceOfLabels, WaitStats } from "./wait-stats";
import { WaitTracker } from "./wait-tracker";

export const TICK_MS = 200;
const LIVENESS_INTERVAL_MS = 2_000;
const LIVENESS_BATCH = 32;
/** A wait younger than this is not asked about: a session is late only after 3 heartbeats. */
const LIVENESS_MIN_WAIT_MS = 3_000;
/** From a change on a node to the index, with keyspace events (measured in ms; a margin). */
const EVENT_MARGIN_MS = 100;

export interface Contention {
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
  readonly config: Pick<ConsoleConfig, "waitObjectives" | "metricsMaxServices">;
  readonly registry: Registry;
  readonly deadlineMs: number;
}

export function createContention(options: ContentionOptions): Contention {
  const { index, nodes } = options;
  const { metric, serviceLabel } = defineContentionMetrics(
    options.registry,
    options.config.metricsMaxServices,
  );
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
  index.listenWaits((key, reads) => tracker.update(key, reads));
  const episodes = new Episodes(() => metric.episodes.inc());
  let latest: ContentionResponse = emptyGraph(Date.now());

  let built: { version: number; graph: WaitGraph; paths: Paths } | null = null;
  const tick = (nowMs = Date.now()) => {
    tracker.sweep(nowMs);
    // The graph changes only when a wait starts or ends or a holder changes: rebuilt only then.
    if (built?.version !== tracker.version) {
      const graph = buildGraph(tracker.locks());
      built = { version: tracker.version, graph, paths: findPaths(graph, MAX_CHAINS_LISTED) };
    }
    const { graph, paths } = built;
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

  const checkLiveness = async () => {
    const nowMs = Date.now();
    const oldest = new Map<string, number>();
    for (const lock of tracker.locks())
      for (const { participant, sinceMs } of lock.waits.values())
        if (!participant.startsWith("waiter:") && nowMs - sinceMs > LIVENESS_MIN_WAIT_MS)
          oldest.set(participant, Math.min(oldest.get(participant) ?? nowMs, sinceMs));
    const sessions = [...oldest]
      .sort(([, a], [, b]) => a - b)
      .slice(0, LIVENESS_BATCH)
      .map(([id]) => id);
    const readings = await readSessions(nodes, sessions, options.deadlineMs);
    sessions.forEach((session, position) => {
      const liveness = deriveLiveness(session, readings[position]!, Date.now());
      if (liveness.state === "gone")
        tracker.sessionGone(session, liveness.lastSeenAt ?? Date.now());
    });
  };

  let probing = false;
  const probeAbsent = async () => {
    for (const key of tracker.absentKeys(PROBED_PER_TICK)) {
      const listed = await probeWaiters(nodes, key, options.deadlineMs);
      if (listed) tracker.probed(key, listed, Date.now());
    }
  };

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

/** The participants the listed chains and cycles name, in the API's shape. */
function participantsNamed(
  graph: WaitGraph,
  paths: ReadonlyArray<{ readonly sessions: readonly string[] }>,
): ContentionResponse["participants"] {
  const named = new Set<string>();
  for (const path of paths) for (const id of path.sessions) named.add(id);
  const participants: ContentionResponse["participants"] = {};
  graph.ids.forEach((id, position) => {
    if (named.has(id)) participants[id] = participantOf(graph, position);
  });
  return participants;
}

function emptyGraph(nowMs: number): ContentionResponse {
  return {
    serverTime: nowMs,
    chains: [],
    chainsTotal: 0,
    cycles: [],
    participants: {},
    waits: 0,
    cycleEpisodesTotal: 0,
    detectionBoundMs: TICK_MS + EVENT_MARGIN_MS,
    partial: true,
  };
}

/**
 * Keyspace events bring a change in milliseconds, so a tick bounds detection; a polled node shows
 * a change only at its next pass (at least a second apart, longer when listing takes longer), so
 * the bound is how stale its view is, plus that second, plus a tick.
 */
function detectionBoundMs(index: LiveIndex, nowMs: number): number {
  let bound = TICK_MS + EVENT_MARGIN_MS;
  for (const node of index.listing().nodes)
    if (node.mode !== "watching")
      bound = Math.max(bound, Math.max(0, nowMs - (node.asOf ?? nowMs)) + 1_000 + TICK_MS);
  return Math.round(bound);
}
