import "server-only";
/**
 * Prometheus metrics (prom-client), one registry per console so tests can run several consoles in
 * one process. Gauges about locks and the index are set from the live index when scraped (from
 * memory: a scrape reads no node), gauges about nodes when a health read completes. One job: the
 * console's metric definitions and how each is set; long because each metric carries its help text.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import {
  transitionKindSchema,
  type EventReads,
  type NodesResponse,
  type Transition,
} from "@/lib/api";
import { quorumSize, type OperationEvent } from "@redlock-console/redlock";
import { MetricServices, type MetricServicesOptions } from "./metric-services";
import type { ConsoleNode } from "./node-registry";
import type { LiveIndex } from "./locks/rows/live-index";
import type { OwnershipFigures } from "./locks/rows/ownership-figures";

/** 1 ms … 2.5 s: a healthy node answers in ~1 ms, a timed-out one at the node timeout. */
const LATENCY_BUCKETS_S = [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** 10 ms … 1 h: a lock held for a request, a job, or a leader's term. */
const HOLD_BUCKETS_S = [0.01, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600];

export interface ConsoleMetrics {
  readonly registry: Registry;
  /**
   * Sets the lock and index gauges from the live index and the ownership figures at a time (the
   * tally its handler keeps: console.ts), once per scrape.
   */
  recordIndex(
    index: LiveIndex,
    figuresAt: (nowMs: number) => OwnershipFigures,
    nodeIds: readonly string[],
  ): void;
  recordNodes(nodes: NodesResponse): void;
  recordOperation(event: OperationEvent, source: string): void;
  recordAction(action: string, outcome: string): void;
  recordForceRelease(outcome: string): void;
  /** A wrong admin credential: `kind` is "login" (the form) or "bearer" (Authorization header). */
  recordAuthFailure(kind: string): void;
  /** A request authenticated with the break-glass admin token ("bearer" or its sign-in "cookie"). */
  recordBreakGlassUse(carrier: string): void;
  recordTransition(transition: Transition): void;
  setEventStreamClients(count: number): void;
  recordBriefHolds(holds: number): void;
}

/** What notifications cost a node and what the console reads for them (index status, eventReads). */
function recordEventReads(
  metric: ReturnType<typeof defineMetrics>,
  node: string,
  reads: EventReads,
): void {
  for (const { pattern, notificationsPerS } of reads.subscriptions)
    metric.notificationsPerS.set({ node, pattern }, notificationsPerS);
  metric.eventReadsPerS.set({ node, outcome: "read" }, reads.readsPerS);
  metric.eventReadsPerS.set({ node, outcome: "skipped" }, reads.readsAvoidedPerS);
  metric.skippedShapes.set({ node }, reads.skippedShapeCount);
}

function defineMetrics(registry: Registry) {
  const registers = [registry];
  return {
    locks: new Gauge({
      name: "redlock_console_locks",
      help: "Locks in the latest snapshot, by state.",
      labelNames: ["state"],
      registers,
    }),
    oldestLockAge: new Gauge({
      name: "redlock_console_oldest_lock_age_seconds",
      help: "Age of the oldest lock whose owner entry tells when it was acquired (0 when none).",
      registers,
    }),
    longHeld: new Gauge({
      name: "redlock_console_long_held_locks",
      help: "Locks held longer than CONSOLE_LONG_HELD_MS.",
      registers,
    }),
    noTtl: new Gauge({
      name: "redlock_console_locks_without_ttl",
      help: "Locks whose value never expires (no TTL).",
      registers,
    }),
    waiters: new Gauge({
      name: "redlock_console_waiters",
      help: "Contenders waiting, summed over locks.",
      registers,
    }),
    oldestWait: new Gauge({
      name: "redlock_console_oldest_wait_seconds",
      help: "How long the longest-waiting contender has waited (0 when none).",
      registers,
    }),
    longWaits: new Gauge({
      name: "redlock_console_long_wait_locks",
      help: "Locks whose oldest waiter has waited longer than CONSOLE_LONG_WAIT_MS.",
      registers,
    }),
    indexStaleness: new Gauge({
      name: "redlock_console_index_staleness_seconds",
      help: "How old the live index's view of each node is (now minus its as-of instant); -1 before the first listing.",
      labelNames: ["node"],
      registers,
    }),
    indexMode: new Gauge({
      name: "redlock_console_index_mode",
      help: "How the live index follows each node: 1 for its current mode (listing, watching, polling, down).",
      labelNames: ["node", "mode"],
      registers,
    }),
    indexListingSeconds: new Gauge({
      name: "redlock_console_index_last_listing_seconds",
      help: "Duration of each node's last complete paced listing.",
      labelNames: ["node"],
      registers,
    }),
    notificationsPerS: new Gauge({
      name: "redlock_console_keyspace_notifications_per_second",
      help: "Keyspace notifications each node delivers to the console, per subscribed pattern (what each pattern costs).",
      labelNames: ["node", "pattern"],
      registers,
    }),
    eventReadsPerS: new Gauge({
      name: "redlock_console_event_reads_per_second",
      help: "Keys read because a notification named them (read), and notifications whose key was not read: it cannot be a lock (skipped).",
      labelNames: ["node", "outcome"],
      registers,
    }),
    skippedShapes: new Gauge({
      name: "redlock_console_skipped_key_shapes",
      help: "Key shapes no longer read on notifications: read many times, never a lock (the resync still lists them).",
      labelNames: ["node"],
      registers,
    }),
    nodesUp: new Gauge({
      name: "redlock_console_nodes_up",
      help: "Nodes answering (up or quarantined).",
      registers,
    }),
    nodesConfigured: new Gauge({
      name: "redlock_console_nodes",
      help: "Configured nodes (REDLOCK_NODES).",
      registers,
    }),
    quorumSize: new Gauge({
      name: "redlock_console_quorum_size",
      help: "Nodes a lock needs: floor(N/2)+1.",
      registers,
    }),
    nodeUp: new Gauge({
      name: "redlock_console_node_up",
      help: "1 when the node answers, else 0.",
      labelNames: ["node", "address"],
      registers,
    }),
    nodeLatency: new Histogram({
      name: "redlock_console_node_latency_seconds",
      help: "Per-node answer time of probe and manual lock operations.",
      labelNames: ["node", "source"],
      buckets: LATENCY_BUCKETS_S,
      registers,
    }),
    quorumLatency: new Histogram({
      name: "redlock_console_quorum_latency_seconds",
      help: "Time of whole lock operations (probe and manual).",
      labelNames: ["source", "outcome"],
      buckets: LATENCY_BUCKETS_S,
      registers,
    }),
    actions: new Counter({
      name: "redlock_console_actions_total",
      help: "Manual actions by kind and outcome.",
      labelNames: ["action", "outcome"],
      registers,
    }),
    forceReleases: new Counter({
      name: "redlock_console_force_releases_total",
      help: "Force-releases by outcome.",
      labelNames: ["outcome"],
      registers,
    }),
    transitions: new Counter({
      name: "redlock_console_lock_transitions_total",
      help: "Lock transitions seen by the live index, by kind and by the holder's owner service label (unknown: unlabelled; CONSOLE_METRICS_SERVICES always, else the CONSOLE_METRICS_MAX_SERVICES seen most recently: a displaced service's series are removed).",
      labelNames: ["kind", "service"],
      registers,
    }),
    possibleOverlaps: new Counter({
      name: "redlock_console_possible_overlaps_total",
      help: "Acquisitions that may overlap their previous holder, which never confirmed it stopped, by reason (expired-while-held, evicted, reservation-unacknowledged, reservation-lifted).",
      labelNames: ["reason"],
      registers,
    }),
    holdSeconds: new Histogram({
      name: "redlock_console_lock_hold_seconds",
      help: "How long ended holds lasted, by how they ended (released, expired, force-released, evicted) and owner service.",
      labelNames: ["ended", "service"],
      buckets: HOLD_BUCKETS_S,
      registers,
    }),
    briefHolds: new Counter({
      name: "redlock_console_brief_holds_total",
      help: "Locks taken and released between two reads of their key (under ~10 ms): counted, not shown as transitions.",
      registers,
    }),
    timelineSubscribers: new Gauge({
      name: "redlock_console_event_stream_clients",
      help: "Browsers following the live transition feed (server-sent events).",
      registers,
    }),
    authFailures: new Counter({
      name: "redlock_console_auth_failures_total",
      help: "Wrong admin credentials, by kind (login form or bearer token).",
      labelNames: ["kind"],
      registers,
    }),
    breakGlassUses: new Counter({
      name: "redlock_console_break_glass_uses_total",
      help: "Requests authenticated with the break-glass admin token, by carrier (bearer, cookie).",
      labelNames: ["carrier"],
      registers,
    }),
  };
}

/** The owner `service` label of a transition as a metric label: "unknown" when unlabelled. */
const serviceOf = (services: MetricServices, transition: Transition): string => {
  const service = transition.owner?.labels.service;
  return service === undefined ? "unknown" : services.label(service);
};

// "evicted" with heldMs is a hold lost to evictions; a per-node eviction has none and is not counted.
const ENDINGS: ReadonlySet<string> = new Set(["released", "expired", "force-released", "evicted"]);

export function createMetrics(
  nodes: readonly ConsoleNode[],
  withDefaults = false,
  services: Pick<MetricServicesOptions, "pinned" | "maxServices"> = { pinned: [], maxServices: 50 },
): ConsoleMetrics {
  const registry = new Registry();
  if (withDefaults) collectDefaultMetrics({ register: registry, prefix: "redlock_console_" });
  const metric = defineMetrics(registry);
  const transitionServices = new MetricServices({
    ...services,
    onDisplaced: (service) => {
      for (const kind of transitionKindSchema.options) metric.transitions.remove({ kind, service });
      for (const ended of ENDINGS) metric.holdSeconds.remove({ ended, service });
    },
  });
  metric.nodesConfigured.set(nodes.length);
  metric.quorumSize.set(quorumSize(nodes.length));
  return {
    registry,
    recordIndex(index, figuresAt, nodeIds) {
      const nowMs = Date.now();
      index.sweep(nowMs);
      for (const [state, count] of Object.entries(index.counts()))
        metric.locks.set({ state }, count);
      const figures = figuresAt(nowMs);
      metric.oldestLockAge.set(figures.oldestAgeS);
      metric.longHeld.set(figures.longHeld);
      metric.noTtl.set(figures.noTtl);
      metric.waiters.set(figures.waiters);
      metric.oldestWait.set(figures.oldestWaitS);
      metric.longWaits.set(figures.longWaits);
      nodeIds.forEach((node, position) => {
        const status = index.nodeStatus(position);
        metric.indexStaleness.set(
          { node },
          status.asOf === null ? -1 : Math.max(0, (nowMs - status.asOf) / 1000),
        );
        for (const mode of ["listing", "watching", "polling", "down"])
          metric.indexMode.set({ node, mode }, status.mode === mode ? 1 : 0);
        if (status.listingMs !== null)
          metric.indexListingSeconds.set({ node }, status.listingMs / 1000);
        if (status.eventReads) recordEventReads(metric, node, status.eventReads);
      });
    },
    recordNodes(report) {
      metric.nodesUp.set(report.nodes.filter((node) => node.status !== "down").length);
      for (const node of report.nodes) {
        metric.nodeUp.set({ node: node.id, address: node.address }, node.status === "down" ? 0 : 1);
      }
    },
    recordOperation(event, source) {
      metric.quorumLatency.observe({ source, outcome: event.outcome }, event.latencyMs / 1000);
      for (const vote of event.nodes) {
        const node = nodes[vote.index];
        if (node) metric.nodeLatency.observe({ node: node.id, source }, vote.latencyMs / 1000);
      }
    },
    recordAction: (action, outcome) => metric.actions.inc({ action, outcome }),
    recordForceRelease: (outcome) => metric.forceReleases.inc({ outcome }),
    recordAuthFailure: (kind) => metric.authFailures.inc({ kind }),
    recordBreakGlassUse: (carrier) => metric.breakGlassUses.inc({ carrier }),
    recordTransition(transition) {
      const service = serviceOf(transitionServices, transition);
      metric.transitions.inc({ kind: transition.kind, service });
      if (transition.possibleOverlap)
        metric.possibleOverlaps.inc({ reason: transition.possibleOverlap.reason });
      if (ENDINGS.has(transition.kind) && transition.heldMs !== null)
        metric.holdSeconds.observe({ ended: transition.kind, service }, transition.heldMs / 1000);
    },
    setEventStreamClients: (count) => metric.timelineSubscribers.set(count),
    recordBriefHolds: (holds) => metric.briefHolds.inc(holds),
  };
}
