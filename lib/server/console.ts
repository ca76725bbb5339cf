import "server-only";
/**
 * The console's server side as one object: configuration, node clients, the console's own Redlock,
 * shared snapshot and health reads, latency history and probe, audit trail, auth and metrics.
 * `createConsole(config)` builds one for any list of nodes (tests make their own); the process-wide
 * instance built from the environment lives in default-console.ts.
 * Over 300 lines, one job: the composition root, where every part is built and handed what it uses
 * (identity's sign-ins, break-glass and tokens, and the replicas' shared history, added ~40 lines).
 */
import type { HealthResponse, LockResponse, NodesResponse, Transition } from "@/lib/api";
import Redlock, { type OperationEvent } from "@redlock-console/redlock";
import { createAuditTrail, type AuditTrail } from "./audit/audit-trail";
import { createRefusalLog, type RefusalLog } from "./audit/refusal-log";
import { createContention, type Contention } from "./contention/monitor";
import { createCredentialFailures, type CredentialFailures } from "./auth/credential-failures";
import { createGuard, type Guard } from "./auth/guard";
import { createPersonalTokens, type PersonalTokens } from "./auth/personal-tokens";
import { createReadLimiter } from "./auth/rate-limit";
import { createRevocations, type Revocations } from "./auth/revocations";
import { createBreakGlass, type BreakGlass } from "./auth/break-glass";
import { createSignInRecords } from "./auth/sign-in/records";
import { createSignIns, type SignIns } from "./auth/sign-in/sign-ins";
import type { ConsoleConfig } from "./config";
import { readNodes } from "./health/health";
import { healthReader } from "./health/health-reader";
import { createNodeHistory } from "./health/node-history";
import { createWriteRateMeter } from "./health/write-rate";
import { createLatencyHistory, PROBE_PREFIX, type LatencyHistory } from "./latency/latency-history";
import { createProbe, type Probe } from "./latency/probe";
import { logger } from "./logger";
import { createMetrics, type ConsoleMetrics } from "./metrics";
import { createNodeRegistry, type ConsoleNode, type NodeRegistry } from "./node-registry";
import { singleFlight } from "./single-flight";
import { LiveIndex } from "./locks/rows/live-index";
import { FiguresTally } from "./locks/rows/ownership-figures";
import { createLockReader } from "./locks/detail/read-one";
import { createSessionDirectory, type SessionDirectory } from "./sessions/directory";
import { watchNodes } from "./sessions/node-watch";
import { readHolderSession, readSessions } from "./sessions/read-session";
import { SessionHoldings } from "./sessions/session-holdings";
import { createStateStore } from "./timeline/state-store";
import { timelineOnIndex } from "./timeline/index-handler";
import { Timeline } from "./timeline/timeline";
import type { ForceMarkEvent } from "./timeline/force-marks";
import { defaultReplicaId, Replica } from "./replicas/replica";
import { wakeAfterExpiredTombstones } from "./timeline/wake-after-expiry";

export interface ConsoleContext {
  readonly config: ConsoleConfig;
  readonly registry: NodeRegistry;
  readonly redlock: Redlock;
  readonly guard: Guard;
  /** Wrong logins and bearer tokens: throttled per client, logged, counted, audited. */
  readonly credentialFailures: CredentialFailures;
  /** Logged-out sessions, kept on the nodes. */
  readonly revocations: Revocations;
  /** People's sign-ins with OpenID Connect (auth/sign-in/sign-ins.ts). */
  readonly signIns: SignIns;
  /** Uses of the break-glass admin token: counted, audited, the latest kept for the admins' banner. */
  readonly breakGlass: BreakGlass;
  /** People's tokens for scripts, kept (hashed) on the nodes. */
  readonly personalTokens: PersonalTokens;
  readonly metrics: ConsoleMetrics;
  readonly latency: LatencyHistory;
  readonly probe: Probe;
  readonly audit: AuditTrail;
  /** Refused state-changing requests and wrong credentials, summed and flushed to their own stream. */
  readonly refusals: RefusalLog;
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
  /** Which holder session holds which locks, kept by the index's handler (sessions/session-holdings.ts). */
  readonly sessionHoldings: SessionHoldings;
  /** Who blocks whom: the wait-for graph, cycles, wait times (contention/monitor.ts). */
  readonly contention: Contention;
  /** The shared node health report (single flight, reused for snapshotMaxAgeMs). */
  nodes(): Promise<NodesResponse>;
  /** `/api/health`: from the latest node report up to HEALTH_STALE_AGES max ages old (health.ts). */
  health(): Promise<HealthResponse>;
  /**
   * `/api/metrics`' body: the node report, the index's gauges, the registry's text. Scrapes that
   * arrive while one renders share it, and it serves every scrape for snapshotMaxAgeMs as the node
   * report does: ten scrapers back to back render once per max age, not once per scrape.
   */
  metricsText(): Promise<string>;
  close(): Promise<void>;
}

/** A health check is answered from a node report up to this many snapshot max ages old. */
const HEALTH_STALE_AGES = 5;

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
  watchNodes(nodes);
  const metrics = createMetrics(nodes, options.processMetrics ?? false, {
    pinned: config.metricsServices,
    maxServices: config.metricsMaxServices,
  });
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
    notifyCheckIntervalMs: config.notifyCheckIntervalMs,
    healBudgetPerS: config.healBudgetPerS,
    enableKeyspaceEvents: config.enableKeyspaceEvents,
    restoreKeyspaceEvents: config.restoreKeyspaceEvents,
    shapes: {
      minReadsToSkip: config.skipShapeAfterReads || Number.POSITIVE_INFINITY,
      probeIntervalMs: config.shapeSampleIntervalMs,
      sampleReadsPerS: config.shapeSampleReadsPerS,
    },
    nodeTimeoutMs: config.nodeTimeoutMs,
    maxKeys: config.scanMaxKeys,
    quorumSize,
    longHeldMs: config.longHeldMs,
    longWaitMs: config.longWaitMs,
  });
  // Registered before the index has listed anything: the tally's running totals see every row.
  const figures = new FiguresTally({
    quorumSize,
    longHeldMs: config.longHeldMs,
    longWaitMs: config.longWaitMs,
  });
  const figuresHandler = index.addHandler(
    { change: (change) => figures.change(change.factsBefore, change.factsAfter) },
    { queue: "coalesced" },
  );
  // Also before the first listing: every lock naming a session is filed by it.
  const sessionHoldings = new SessionHoldings(index);
  sessionHoldings.registered(index.addHandler(sessionHoldings, { queue: "coalesced" }));
  const store = config.stateUrl ? createStateStore(config.stateUrl) : null;
  const replicaId = config.replicaId ?? defaultReplicaId();
  const onIndex = timelineOnIndex(index);
  // With a state store, this console is one replica of a shared history (lib/server/replicas/).
  const replica = store
    ? new Replica({
        id: replicaId,
        store,
        nodes,
        historyMax: config.historyMax,
        leaseMs: config.writerLeaseMs,
        nodeDeadlineMs,
        accept: (transition) => timeline.accept(transition),
        restore: (loaded) => timeline.restore(loaded.transitions, loaded.asOfMs),
        applyForceMark: (event) => timeline.applyForceMark(event),
      })
    : null;
  const timeline: Timeline = new Timeline(onIndex.view, {
    capacity: config.historyMax,
    durable: () => replica?.shared ?? false,
    onTransition: (transition) => metrics.recordTransition(transition),
    ...(replica && {
      record: (transition: Transition) => replica.record(transition),
      shareForceMark: (event: ForceMarkEvent) => replica.shareForceMark(event),
    }),
    onComplete: (nowMs) => replica?.markAsOf(nowMs),
    onBriefHolds: (holds) => metrics.recordBriefHolds(holds),
    // Only for holds that expired while held: why (the holder crashed, paused or failed to extend).
    readSession: async (sessionId) =>
      (await readSessions(nodes, [sessionId], nodeDeadlineMs))[0] ?? [],
  });
  wakeAfterExpiredTombstones(timeline, nodes);
  if (replica) {
    // History from the store first, then live transitions after it, in order.
    void replica.start().finally(() => index.addHandler(onIndex.handler(timeline)));
  } else {
    index.addHandler(onIndex.handler(timeline));
  }
  const readLock = createLockReader({
    nodes,
    quorumSize,
    limits: config,
    index,
    patterns: config.lockMatch,
    maxAgeMs: config.snapshotMaxAgeMs,
    readHolderSession: (value) => readHolderSession(nodes, value, nodeDeadlineMs),
  });
  const writeRates = createWriteRateMeter();
  const nodeHistory = createNodeHistory(nodes, nodeDeadlineMs);
  const nodeReport = singleFlight(async () => {
    const report = await readNodes(
      nodes,
      redlock,
      config,
      nodeDeadlineMs,
      index,
      writeRates,
      nodeHistory,
    );
    metrics.recordNodes(report);
    return report;
  }, config.snapshotMaxAgeMs);
  const metricsText = singleFlight(async () => {
    await nodeReport();
    // What expired by now leaves the rows here; the figures count it once the tally has heard.
    index.sweep();
    await figuresHandler.drained();
    metrics.recordIndex(
      index,
      (nowMs) => figures.figures(nowMs),
      nodes.map((node) => node.id),
    );
    return metrics.registry.metrics();
  }, config.snapshotMaxAgeMs);
  const audit = createAuditTrail({
    nodes,
    retention: { maxLen: config.auditMaxLen, retentionDays: config.auditRetentionDays },
    deadlineMs: nodeDeadlineMs,
    isHung,
  });
  const refusals = createRefusalLog(
    {
      nodes,
      retention: { maxLen: config.auditRefusalsMaxLen, retentionDays: config.auditRetentionDays },
      deadlineMs: nodeDeadlineMs,
      isHung,
    },
    config.auditRefusalFlushMs,
  );
  const credentialFailures = createCredentialFailures(refusals, metrics, config.trustProxy);
  const revocations = createRevocations(nodes, nodeDeadlineMs, isHung);
  const signIns = createSignIns(config, createSignInRecords(nodes, nodeDeadlineMs, isHung));
  const breakGlass = createBreakGlass({
    nodes,
    deadlineMs: nodeDeadlineMs,
    metrics,
    audit,
    trustProxy: config.trustProxy,
  });
  const personalTokens = createPersonalTokens({
    nodes,
    quorumSize,
    deadlineMs: nodeDeadlineMs,
    isHung,
    maxTtlDays: config.tokenMaxTtlDays,
  });
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
  index.addHandler(contention.indexHandler, { queue: "coalesced" });
  const readHealth = healthReader(
    nodeReport,
    config.readOnly,
    config.snapshotMaxAgeMs * HEALTH_STALE_AGES,
  );
  const close = async () => {
    probe.stop();
    contention.close();
    await refusals.close(); // before the node clients go: the window's refusals are written
    await index.close();
    await replica?.close();
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
    sessionHoldings,
    sessions: createSessionDirectory({
      nodes,
      index,
      holdings: sessionHoldings,
      deadlineMs: nodeDeadlineMs,
      maxAgeMs: config.snapshotMaxAgeMs,
    }),
    guard: createGuard(config, {
      revocations,
      failures: credentialFailures,
      reads,
      signIns,
      breakGlass,
      personalTokens,
    }),
    credentialFailures,
    revocations,
    signIns,
    breakGlass,
    personalTokens,
    audit,
    refusals,
    nodes: nodeReport,
    health: async () => ({
      ...(await readHealth()),
      replica: replica?.status() ?? { id: replicaId, historyWriter: true },
    }),
    metricsText,
  };
}
