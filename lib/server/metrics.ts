import "server-only";
/**
 * Prometheus metrics (prom-client), one registry per console so tests can run several consoles in
 * one process. Gauges about locks and nodes are set when a snapshot or health read completes.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { NodesResponse } from "@/lib/api";
import { quorumSize, type OperationEvent } from "@redlock-console/redlock";
import type { ConsoleNode } from "./node-registry";
import type { Snapshot } from "./snapshot/snapshot";

/** 1 ms … 2.5 s: a healthy node answers in ~1 ms, a timed-out one at the node timeout. */
const LATENCY_BUCKETS_S = [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export interface ConsoleMetrics {
  readonly registry: Registry;
  recordSnapshot(snapshot: Snapshot): void;
  recordNodes(nodes: NodesResponse): void;
  recordOperation(event: OperationEvent, source: string): void;
  recordAction(action: string, outcome: string): void;
  recordForceRelease(outcome: string): void;
  /** A wrong admin credential: `kind` is "login" (the form) or "bearer" (Authorization header). */
  recordAuthFailure(kind: string): void;
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
    authFailures: new Counter({
      name: "redlock_console_auth_failures_total",
      help: "Wrong admin credentials, by kind (login form or bearer token).",
      labelNames: ["kind"],
      registers,
    }),
  };
}

/** Ownership figures of one snapshot: ages in seconds at the snapshot's clock. */
function ownershipFigures(snapshot: Snapshot) {
  const figures = {
    oldestAgeS: 0,
    longHeld: 0,
    noTtl: 0,
    waiters: 0,
    oldestWaitS: 0,
    longWaits: 0,
  };
  const secondsSince = (epochMs: number) => Math.max(0, (snapshot.serverTime - epochMs) / 1000);
  for (const { row } of snapshot.rows) {
    if (row.heldSince !== null)
      figures.oldestAgeS = Math.max(figures.oldestAgeS, secondsSince(row.heldSince));
    if (row.flags.includes("long-held")) figures.longHeld += 1;
    if (row.flags.includes("no-ttl")) figures.noTtl += 1;
    if (row.flags.includes("long-wait")) figures.longWaits += 1;
    figures.waiters += row.waiters.count;
    if (row.waiters.oldestSince !== null)
      figures.oldestWaitS = Math.max(figures.oldestWaitS, secondsSince(row.waiters.oldestSince));
  }
  return figures;
}

export function createMetrics(nodes: readonly ConsoleNode[], withDefaults = false): ConsoleMetrics {
  const registry = new Registry();
  if (withDefaults) collectDefaultMetrics({ register: registry, prefix: "redlock_console_" });
  const metric = defineMetrics(registry);
  metric.nodesConfigured.set(nodes.length);
  metric.quorumSize.set(quorumSize(nodes.length));
  return {
    registry,
    recordSnapshot(snapshot) {
      for (const [state, count] of Object.entries(snapshot.counts))
        metric.locks.set({ state }, count);
      metric.scanSeconds.observe(snapshot.scanMs / 1000);
      const figures = ownershipFigures(snapshot);
      metric.oldestLockAge.set(figures.oldestAgeS);
      metric.longHeld.set(figures.longHeld);
      metric.noTtl.set(figures.noTtl);
      metric.waiters.set(figures.waiters);
      metric.oldestWait.set(figures.oldestWaitS);
      metric.longWaits.set(figures.longWaits);
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
  };
}
