import "server-only";
/** `/api/nodes` and `/api/health`: every node probed in parallel, each bounded by the node timeout. */
import type {
  ClusterShard,
  HealthResponse,
  NodeIndex,
  NodeInfo,
  NodesResponse,
  NodeWarning,
} from "@/lib/api";
import { quorumSize, type default as Redlock } from "@redlock-console/redlock";
import type { ConsoleConfig } from "../config";
import { redactText } from "../logger";
import type { ClusterWatch, WatchedPrimary } from "../locks/watch/cluster-watch";
import type { ClusterNode, ConsoleNode } from "../node-registry";
import { withDeadline } from "../node-registry";
import { readNodeInfo, type RawNodeInfo } from "./read-node-info";
import { nodeWarnings } from "./warnings";
import type { WriteRateMeter } from "./write-rate";

const numberOrNull = (text: string | undefined) =>
  text === undefined || text === "" ? null : Number(text);

function keyCount(info: Record<string, string>, db: number): number | null {
  const keyspace = info[`db${db}`];
  if (keyspace === undefined) return 0;
  return numberOrNull(/keys=(\d+)/.exec(keyspace)?.[1]);
}

const errorText = (error: unknown) =>
  redactText(error instanceof Error ? error.message : String(error));

type NodeReport = Omit<NodeInfo, "index">;

function downNode(node: ConsoleNode, error: unknown): NodeReport {
  const message = errorText(error);
  return {
    id: node.id,
    address: node.address,
    tls: node.tls,
    kind: node.kind,
    cluster: null,
    status: "down",
    latencyMs: null,
    runId: null,
    uptimeS: null,
    redisVersion: null,
    role: null,
    quarantinedUntil: null,
    clockSkewMs: null,
    keyCount: null,
    usedMemoryBytes: null,
    maxmemoryPolicy: null,
    aofEnabled: null,
    error: message,
    warnings: [{ code: "unreachable", message: `The node did not answer: ${message}` }],
  };
}

function upNode(
  node: ConsoleNode,
  raw: RawNodeInfo,
  config: ConsoleConfig,
  quarantinedUntil: number | undefined,
  writeRates: WriteRateMeter | undefined,
): NodeReport {
  const { info } = raw;
  return {
    id: node.id,
    address: node.address,
    tls: node.tls,
    kind: node.kind,
    cluster: null,
    status: quarantinedUntil === undefined ? "up" : "quarantined",
    latencyMs: raw.latencyMs,
    runId: info.run_id ?? null,
    uptimeS: numberOrNull(info.uptime_in_seconds),
    redisVersion: info.redis_version ?? null,
    role: info.role ?? null,
    quarantinedUntil: quarantinedUntil ?? null,
    clockSkewMs: raw.clockSkewMs,
    keyCount: keyCount(info, node.kind === "single" ? (node.client.options.db ?? 0) : 0),
    usedMemoryBytes: numberOrNull(info.used_memory),
    maxmemoryPolicy: info.maxmemory_policy ?? null,
    aofEnabled: info.aof_enabled === undefined ? null : info.aof_enabled === "1",
    error: null,
    warnings: nodeWarnings(raw, {
      restartQuarantineMs: config.restartQuarantineMs,
      clockSkewWarnMs: config.clockSkewWarnMs,
    }),
    writeRate: writeRates?.sample(node.id, info, Date.now()) ?? null,
  };
}

/** One primary of a cluster node, read as a single server is. */
async function readPrimary(
  primary: WatchedPrimary,
  deadlineMs: number,
): Promise<{ shard: ClusterShard; raw: RawNodeInfo | null }> {
  const base = {
    address: primary.address,
    slotRanges: primary.slotRanges.map(([start, end]): [number, number] => [start, end]),
    slotCount: primary.slotRanges.reduce((count, [start, end]) => count + end - start + 1, 0),
    replicas: primary.replicas.map(({ address, health }) => ({ address, health })),
    index: primary.watch.status(),
  };
  try {
    const raw = await withDeadline(readNodeInfo(primary.client), deadlineMs);
    const shard: ClusterShard = {
      ...base,
      status: "up",
      runId: raw.info.run_id ?? null,
      latencyMs: raw.latencyMs,
      keyCount: keyCount(raw.info, 0),
      error: null,
    };
    return { shard, raw };
  } catch (error) {
    const shard: ClusterShard = {
      ...base,
      status: "down",
      runId: null,
      latencyMs: null,
      keyCount: null,
      error: errorText(error),
    };
    return { shard, raw: null };
  }
}

/**
 * A cluster node: every primary read as a single server, and the cluster's state. It is down only
 * when no primary answers (a lock on a reachable shard's slots can still be voted on); a primary
 * down, unserved slots or cluster_state:fail make it degraded, and replicas get the failover warning.
 */
async function readClusterNode(
  node: ClusterNode,
  watch: ClusterWatch,
  config: ConsoleConfig,
  deadlineMs: number,
  quarantinedUntil: number | undefined,
): Promise<NodeReport> {
  const reads = await Promise.all(
    watch.primaries.map((primary) => readPrimary(primary, deadlineMs)),
  );
  const answered = reads.flatMap(({ raw }) => (raw ? [raw] : []));
  // In slot order, as an operator reads a cluster.
  const shards = reads
    .map(({ shard }) => shard)
    .sort((a, b) => (a.slotRanges[0]?.[0] ?? 16_384) - (b.slotRanges[0]?.[0] ?? 16_384));
  const slotsCovered = shards.reduce((count, shard) => count + shard.slotCount, 0);
  const upPrimary = watch.primaries.find((_, index) => reads[index]!.raw !== null);
  const state = upPrimary
    ? await withDeadline(upPrimary.client.cluster("INFO"), deadlineMs).then(
        (text) => /cluster_state:(\w+)/.exec(String(text))?.[1] ?? null,
        () => null,
      )
    : null;
  const cluster = { state, slotsCovered, topologyAt: watch.topologyAt, shards };
  if (answered.length === 0) {
    const reason = watch.status().reason ?? "no primary of the cluster answered";
    return { ...downNode(node, new Error(reason)), cluster };
  }
  const first = answered[0]!;
  const policy = {
    restartQuarantineMs: config.restartQuarantineMs,
    clockSkewWarnMs: config.clockSkewWarnMs,
  };
  const warnings: NodeWarning[] = [];
  const seen = new Set<string>();
  reads.forEach(({ raw, shard }) => {
    for (const warning of raw ? nodeWarnings(raw, policy) : []) {
      if (seen.has(warning.code)) continue;
      seen.add(warning.code);
      warnings.push({ ...warning, message: `${shard.address}: ${warning.message}` });
    }
  });
  const down = shards.filter((shard) => shard.status === "down").map((shard) => shard.address);
  if (state !== "ok" || slotsCovered < 16_384 || down.length > 0) {
    const problems = [
      ...(state !== "ok" ? [`cluster_state is ${state ?? "unknown"}`] : []),
      ...(slotsCovered < 16_384 ? [`${16_384 - slotsCovered} slots have no primary`] : []),
      ...(down.length > 0 ? [`primary ${down.join(", ")} does not answer`] : []),
    ];
    warnings.push({
      code: "cluster_degraded",
      message: `The cluster is degraded (${problems.join("; ")}): locks on the slots concerned get no vote from this node.`,
    });
  }
  if (shards.some((shard) => shard.replicas.length > 0)) {
    warnings.push({
      code: "cluster_replicas",
      message:
        "The cluster's primaries have replicas, and replication is asynchronous: a failover may promote a replica that lacks a lock just granted, as if the node restarted empty. Keep restart quarantine on (it covers a promotion it sees), or run primaries without replicas.",
    });
  }
  const sum = (values: ReadonlyArray<string | undefined>) =>
    values.reduce((total, value) => total + (numberOrNull(value) ?? 0), 0);
  return {
    id: node.id,
    address: node.address,
    tls: node.tls,
    kind: "cluster",
    cluster,
    status: quarantinedUntil === undefined ? "up" : "quarantined",
    latencyMs: Math.max(...answered.map((raw) => raw.latencyMs)),
    runId: null,
    uptimeS: Math.min(...answered.map((raw) => numberOrNull(raw.info.uptime_in_seconds) ?? 0)),
    redisVersion: first.info.redis_version ?? null,
    role: "master",
    quarantinedUntil: quarantinedUntil ?? null,
    clockSkewMs: answered
      .map((raw) => raw.clockSkewMs)
      .reduce((worst, skew) => (Math.abs(skew) > Math.abs(worst) ? skew : worst)),
    keyCount: shards.reduce((total, shard) => total + (shard.keyCount ?? 0), 0),
    usedMemoryBytes: sum(answered.map((raw) => raw.info.used_memory)),
    maxmemoryPolicy: first.info.maxmemory_policy ?? null,
    aofEnabled: answered.every((raw) => raw.info.aof_enabled === "1"),
    error: down.length > 0 ? `primary ${down.join(", ")} does not answer` : null,
    warnings,
  };
}

/** What the health report needs of the live index. */
export interface IndexView {
  nodeStatus(position: number): NodeIndex;
  clusterOf(position: number): ClusterWatch | null;
}

/**
 * Reads every node; a node slower than `deadlineMs` in total is reported down. `writeRates` keeps
 * the previous report's counters, so a single server's write rate comes with the same INFO.
 */
export async function readNodes(
  nodes: readonly ConsoleNode[],
  redlock: Redlock,
  config: ConsoleConfig,
  deadlineMs: number,
  index: IndexView,
  writeRates?: WriteRateMeter,
): Promise<NodesResponse> {
  const states = redlock.nodeStates();
  const readNode = (node: ConsoleNode): Promise<NodeReport> => {
    const quarantinedUntil = states[node.index]?.quarantinedUntil;
    const watch = index.clusterOf(node.index);
    if (node.kind === "cluster" && watch)
      return readClusterNode(node, watch, config, deadlineMs, quarantinedUntil);
    if (node.kind === "cluster") return Promise.resolve(downNode(node, "no index of the cluster"));
    return withDeadline(readNodeInfo(node.client), deadlineMs).then(
      (raw) => upNode(node, raw, config, quarantinedUntil, writeRates),
      (error: unknown) => downNode(node, error),
    );
  };
  const infos = await Promise.all(
    nodes.map((node) =>
      readNode(node).then((info): NodeInfo => ({ ...info, index: index.nodeStatus(node.index) })),
    ),
  );
  return {
    serverTime: Date.now(),
    quorumSize: quorumSize(nodes.length),
    restartQuarantineMs: config.restartQuarantineMs,
    nodes: infos,
  };
}

export function healthOf(nodes: NodesResponse, readOnly: boolean): HealthResponse {
  const reachableNodes = nodes.nodes.filter((node) => node.status !== "down").length;
  const status =
    reachableNodes === nodes.nodes.length
      ? "ok"
      : reachableNodes >= nodes.quorumSize
        ? "degraded"
        : "no_quorum";
  return {
    status,
    serverTime: nodes.serverTime,
    readOnly,
    quorumSize: nodes.quorumSize,
    reachableNodes,
    nodes: nodes.nodes.map((node) => ({
      id: node.id,
      address: node.address,
      up: node.status !== "down",
    })),
  };
}
