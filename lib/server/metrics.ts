import "server-only";
/**
 * Prometheus metrics (prom-client), one registry per console so tests can run several consoles in
 * one process. Gauges about locks and nodes are set when a snapshot or health read completes.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { LockCounts, NodesResponse } from "@/lib/api";
import type { OperationEvent } from "@redlock-console/redlock";
import type { ConsoleNode } from "./node-registry";

/** 1 ms … 2.5 s: a healthy node answers in ~1 ms, a timed-out one at the node timeout. */
const LATENCY_BUCKETS_S = [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export interface ConsoleMetrics {
  readonly registry: Registry;
  recordSnapshot(counts: LockCounts, scanMs: number): void;
  recordNodes(nodes: NodesResponse): void;
  recordOperation(event: OperationEvent, source: string): void;
  recordAction(action: string, outcome: string): void;
  recordForceRelease(outcome: string): void;
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
    scanSeconds: new Histogram({
      name: "redlock_console_snapshot_seconds",
      help: "Time to build one lock snapshot.",
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    nodesUp: new Gauge({
      name: "redlock_console_nodes_up",
      help: "Nodes answering (up or quarantined).",
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
  };
}

export function createMetrics(nodes: readonly ConsoleNode[], withDefaults = false): ConsoleMetrics {
  const registry = new Registry();
  if (withDefaults) collectDefaultMetrics({ register: registry, prefix: "redlock_console_" });
  const metric = defineMetrics(registry);
  return {
    registry,
    recordSnapshot(counts, scanMs) {
      for (const [state, count] of Object.entries(counts)) metric.locks.set({ state }, count);
      metric.scanSeconds.observe(scanMs / 1000);
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
  };
}
