import "server-only";
/**
 * A Redis Cluster lock node's entry in the node report: every primary read as a single server is,
 * and the cluster's state.
 */
import type { ClusterShard, NodeWarning } from "@/lib/api";
import type { ConsoleConfig } from "../config";
import type { ClusterWatch, WatchedPrimary } from "../locks/watch/node/cluster-watch";
import type { ClusterNode } from "../node-registry";
import { withDeadline } from "../node-registry";
import { downNode, errorText, keyCount, numberOrNull, type NodeReport } from "./node-report";
import { readNodeInfo, type RawNodeInfo } from "./read-node-info";
import { nodeWarnings } from "./warnings";

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
export async function readClusterNode(
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
