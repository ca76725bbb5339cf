import "server-only";
/**
 * The console's server side as one object: configuration, node clients, the console's own Redlock,
 * shared snapshot and health reads, latency history and probe, audit trail, auth and metrics.
 * `createConsole(config)` builds one for any list of nodes (tests make their own); the process-wide
 * instance built from the environment lives in default-console.ts.
 */
import type { LockResponse, NodesResponse } from "@/lib/api";
import Redlock, { type OperationEvent } from "@redlock-console/redlock";
import { createAuditTrail, type AuditTrail } from "./audit/audit-trail";
import { createContention, type Contention } from "./contention/monitor";
import { createCredentialFailures, type CredentialFailures } from "./auth/credential-failures";
import { createGuard, type Guard } from "./auth/guard";
import { createReadLimiter } from "./auth/rate-limit";
import { createRevocations, type Revocations } from "./auth/revocations";
import type { ConsoleConfig } from "./config";
import { readNodes } from "./health/health";
import { createWriteRateMeter } from "./health/write-rate";
import { createLatencyHistory, PROBE_PREFIX, type LatencyHistory } from "./latency/latency-history";
import { createProbe, type Probe } from "./latency/probe";
import { logger } from "./logger";
import { createMetrics, type ConsoleMetrics } from "./metrics";
import { createNodeRegistry, type ConsoleNode, type NodeRegistry } from "./node-registry";
import { singleFlight } from "./single-flight";
import { LiveIndex } from "./locks/rows/live-index";
import { createLockReader } from "./locks/detail/read-one";
import { createSessionDirectory, type SessionDirectory } from "./sessions/directory";
import { readSessions } from "./sessions/read-session";
import { createStateStore } from "./timeline/state-store";
import { openStateStore } from "./timeline/open-state-store";
import { Timeline } from "./timeline/timeline";

export interface ConsoleContext {
  readonly config: ConsoleConfig;
  readonly registry: NodeRegistry;
  readonly redlock: Redlock;
  readonly guard: Guard;
  /** Wrong logins and bearer tokens: throttled per client, logged, counted, audited. */
  readonly credentialFailures: CredentialFailures;
  /** Logged-out sessions, kept on the nodes. */
  readonly revocations: Revocations;
  readonly metrics: ConsoleMetrics;
  readonly latency: LatencyHistory;
  readonly probe: Probe;
  readonly audit: AuditTrail;
  /** Budget of a multi-command read of one node (health, audit, force-release), in ms. */
  readonly nodeDeadlineMs: number;
  /** The node has a lock command overdue now: skip it instead of waiting another timeout. */
  isHung(node: ConsoleNode): boolean;
  /** Every lock on every node, listed once and kept current (locks/rows/live-index.ts). */
  readonly index: LiveIndex;
  /** Per-lock transitions folded from the index's changes (timeline/timeline.ts). */
  readonly timeline: Timeline;
  /** One resource for its page: the index's row plus a fresh read shared by every viewer. */
  readLock(key: Buffer): Promise<LockResponse>;
  /** Holder sessions: who holds and waits for what, and their liveness (sessions/directory.ts). */
  readonly sessions: SessionDirectory;
  /** Who blocks whom: the wait-for graph, cycles, wait times (contention/monitor.ts). */
  readonly contention: Contention;
  /** The shared node health report (single flight, reused for snapshotMaxAgeMs). */
  nodes(): Promise<NodesResponse>;
  /**
   * `/api/metrics`' body: the node report, the index's gauges, the registry's text. Scrapes that
   * arrive while one renders share it (never an older one): ten scrapers woken together by the
   * node report render once, not ten times in one turn of the event loop.
   */
  metricsText(): Promise<string>;
  close(): Promise<void>;
}

export interface ConsoleOptions {
  /** Also export Node.js process metrics (only for the process-wide console). @default false */
  readonly processMetrics?: boolean;
}

/** The console's own Redlock: one attempt per action, and every operation feeds the charts and metrics. */
function createConsoleRedlock(
  registry: NodeRegistry,
  config: ConsoleConfig,
  latency: LatencyHistory,
  metrics: ConsoleMetrics,
): Redlock {
  const redlock = new Redlock(
    registry.nodes.map((node) => node.client),
    {
      retryCount: 0,
      nodeTimeout: config.nodeTimeoutMs,
      restartQuarantine: config.restartQuarantineMs > 0 ? config.restartQuarantineMs : false,
      // No holder session: the console's own locks (playground, probes) are held for an operator
      // through the HTTP API, not by a routine that could hear a notice and acknowledge. A
      // force-release of one asks the operator (release now, or hold until its TTL), as the
      // dialog expects, and the console never lists itself among the holder sessions.
      session: false,
    },
  );
  redlock.on("operation", (event: OperationEvent) => {
    latency.record(event);
    const isProbe = event.resources.some((resource) => resource.startsWith(PROBE_PREFIX));
    metrics.recordOperation(event, isProbe ? "probe" : event.operation);
  });
  return redlock;
}

export function createConsole(config: ConsoleConfig, options: ConsoleOptions = {}): ConsoleContext {
  logger.level = config.logLevel;
  const registry = createNodeRegistry(config);
  const { nodes, quorumSize } = registry;
  const metrics = createMetrics(nodes, options.processMetrics ?? false, config.metricsMaxServices);
  const latency = createLatencyHistory(nodes);
  const redlock = createConsoleRedlock(registry, config, latency, metrics);
  const nodeDeadlineMs = config.nodeTimeoutMs + 250;
  const isHung = (node: ConsoleNode) => redlock.nodeStates()[node.index]?.status === "suspect";
  const probe = createProbe(redlock, config.probeIntervalMs);
  const index = new LiveIndex(nodes, {
    patterns: config.lockMatch,
    budgetPerS: config.scanBudgetPerS,
    readBytesPerS: config.readBytesPerS,
    resyncIntervalMs: config.resyncIntervalMs,
    enableKeyspaceEvents: config.enableKeyspaceEvents,
    restoreKeyspaceEvents: config.restoreKeyspaceEvents,
    shapes: {
      minReadsToSkip: config.skipShapeAfterReads || Number.POSITIVE_INFINITY,
      probeIntervalMs: config.shapeSampleIntervalMs,
    },
    nodeTimeoutMs: config.nodeTimeoutMs,
    maxKeys: config.scanMaxKeys,
    quorumSize,
    longHeldMs: config.longHeldMs,
    longWaitMs: config.longWaitMs,
  });
  const store = config.stateUrl ? createStateStore(config.stateUrl, config.historyMax) : null;
  let storeRefused = false;
  const timeline = new Timeline(index, {
    capacity: config.historyMax,
    durable: () => store !== null && !storeRefused,
    onTransition: (transition) => {
      metrics.recordTransition(transition);
      store?.append(transition);
    },
    onComplete: (nowMs) => store?.markAsOf(nowMs),
    onBriefHolds: (holds) => metrics.recordBriefHolds(holds),
    // Only for holds that expired while held: why (the holder crashed, paused or failed to extend).
    readSession: async (sessionId) =>
      (await readSessions(nodes, [sessionId], nodeDeadlineMs))[0] ?? [],
  });
  if (store) {
    // History from the store first, then live transitions after it, in order.
    void openStateStore(store, nodes, config.historyMax, nodeDeadlineMs)
      .then(
        (loaded) => {
          if (loaded) timeline.restore(loaded.transitions, loaded.asOfMs);
          else storeRefused = true;
        },
        (error: unknown) =>
          logger.warn({ error: String(error) }, "state store unreadable: history starts now"),
      )
      .finally(() => index.observe(timeline));
  } else {
    index.observe(timeline);
  }
  const readLock = createLockReader({
    nodes,
    quorumSize,
    limits: config,
    index,
    patterns: config.lockMatch,
    maxAgeMs: config.snapshotMaxAgeMs,
    deadlineMs: nodeDeadlineMs,
  });
  const writeRates = createWriteRateMeter();
  const nodeReport = singleFlight(async () => {
    const report = await readNodes(nodes, redlock, config, nodeDeadlineMs, index, writeRates);
    metrics.recordNodes(report);
    return report;
  }, config.snapshotMaxAgeMs);
  const metricsText = singleFlight(async () => {
    await nodeReport();
    metrics.recordIndex(
      index,
      nodes.map((node) => node.id),
    );
    return metrics.registry.metrics();
  }, 0);
  const audit = createAuditTrail(nodes, config.auditMaxLen, nodeDeadlineMs, isHung);
  const credentialFailures = createCredentialFailures(audit, metrics, config.trustProxy);
  const revocations = createRevocations(nodes, nodeDeadlineMs, isHung);
  const reads = createReadLimiter({
    perSecond: config.readLimitPerS,
    burst: config.readLimitPerS * 10,
    maxClients: 10_000,
  });
  const contention = createContention({
    index,
    nodes,
    config,
    registry: metrics.registry,
    deadlineMs: nodeDeadlineMs,
  });
  const close = async () => {
    probe.stop();
    contention.close();
    await index.close();
    await store?.close();
    await registry.close();
  };
  return {
    ...{
      config,
      registry,
      redlock,
      metrics,
      latency,
      probe,
      nodeDeadlineMs,
      isHung,
      index,
      timeline,
      readLock,
      contention,
      close,
    },
    sessions: createSessionDirectory({
      nodes,
      index,
      deadlineMs: nodeDeadlineMs,
      maxAgeMs: config.snapshotMaxAgeMs,
    }),
    guard: createGuard(config, { revocations, failures: credentialFailures, reads }),
    credentialFailures,
    revocations,
    audit,
    nodes: nodeReport,
    metricsText,
  };
}
