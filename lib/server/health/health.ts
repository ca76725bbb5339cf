import "server-only";
/** `/api/nodes` and `/api/health`: every node probed in parallel, each bounded by the node timeout. */
import type { HealthResponse, NodeIndex, NodeInfo, NodesResponse } from "@/lib/api";
import { quorumSize, type default as Redlock } from "@redlock-console/redlock";
import type { ConsoleConfig } from "../config";
import { redactText } from "../logger";
import type { ConsoleNode } from "../node-registry";
import { withDeadline } from "../node-registry";
import { readNodeInfo, type RawNodeInfo } from "./read-node-info";
import { nodeWarnings } from "./warnings";

const numberOrNull = (text: string | undefined) =>
  text === undefined || text === "" ? null : Number(text);

function keyCount(info: Record<string, string>, db: number): number | null {
  const keyspace = info[`db${db}`];
  if (keyspace === undefined) return 0;
  return numberOrNull(/keys=(\d+)/.exec(keyspace)?.[1]);
}

function downNode(node: ConsoleNode, error: unknown): Omit<NodeInfo, "index"> {
  const message = redactText(error instanceof Error ? error.message : String(error));
  return {
    id: node.id,
    address: node.address,
    tls: node.tls,
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
): Omit<NodeInfo, "index"> {
  const { info } = raw;
  return {
    id: node.id,
    address: node.address,
    tls: node.tls,
    status: quarantinedUntil === undefined ? "up" : "quarantined",
    latencyMs: raw.latencyMs,
    runId: info.run_id ?? null,
    uptimeS: numberOrNull(info.uptime_in_seconds),
    redisVersion: info.redis_version ?? null,
    role: info.role ?? null,
    quarantinedUntil: quarantinedUntil ?? null,
    clockSkewMs: raw.clockSkewMs,
    keyCount: keyCount(info, node.client.options.db ?? 0),
    usedMemoryBytes: numberOrNull(info.used_memory),
    maxmemoryPolicy: info.maxmemory_policy ?? null,
    aofEnabled: info.aof_enabled === undefined ? null : info.aof_enabled === "1",
    error: null,
    warnings: nodeWarnings(raw, {
      restartQuarantineMs: config.restartQuarantineMs,
      clockSkewWarnMs: config.clockSkewWarnMs,
    }),
  };
}

/** Reads every node; a node slower than `deadlineMs` in total is reported down. */
export async function readNodes(
  nodes: readonly ConsoleNode[],
  redlock: Redlock,
  config: ConsoleConfig,
  deadlineMs: number,
  indexOf: (position: number) => NodeIndex,
): Promise<NodesResponse> {
  const states = redlock.nodeStates();
  const infos = await Promise.all(
    nodes.map((node) =>
      withDeadline(readNodeInfo(node.client), deadlineMs)
        .then(
          (raw) => upNode(node, raw, config, states[node.index]?.quarantinedUntil),
          (error: unknown) => downNode(node, error),
        )
        .then((info): NodeInfo => ({ ...info, index: indexOf(node.index) })),
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
