import "server-only";
/** `/api/nodes` and `/api/health`: every node probed in parallel, each bounded by the node timeout. */
import type { HealthResponse, NodeIndex, NodeInfo, NodesResponse } from "@/lib/api";
import { quorumSize, type default as Redlock } from "@redlock-console/redlock";
import type { ConsoleConfig } from "../config";
import type { ClusterWatch } from "../locks/watch/node/cluster-watch";
import type { ConsoleNode } from "../node-registry";
import { withDeadline } from "../node-registry";
import { readClusterNode } from "./cluster-report";
import { processInfoOf, type NodeHistory } from "./node-history";
import { downNode, upNode, type NodeReport } from "./node-report";
import { readNodeInfo } from "./read-node-info";
import type { MarginIndex } from "./restart-margin";
import { restartReport, type RestartContext } from "./restart-report";
import type { WriteRateMeter } from "./write-rate";

/** What the health report needs of the live index. */
export interface IndexView extends MarginIndex {
  nodeStatus(position: number): NodeIndex;
  clusterOf(position: number): ClusterWatch | null;
}

/**
 * Reads every node; a node slower than `deadlineMs` in total is reported down. `writeRates` keeps
 * the previous report's counters, so a single server's write rate comes with the same INFO;
 * `history` what a single read cannot know (a down node's cause and since when, restarts).
 */
export async function readNodes(
  nodes: readonly ConsoleNode[],
  redlock: Redlock,
  config: ConsoleConfig,
  deadlineMs: number,
  index: IndexView,
  writeRates?: WriteRateMeter,
  history?: NodeHistory,
): Promise<NodesResponse> {
  const states = redlock.nodeStates();
  const restartContext = (): RestartContext => ({
    index,
    nodeCount: nodes.length,
    quorumSize: quorumSize(nodes.length),
    restartQuarantineMs: config.restartQuarantineMs,
    nowMs: Date.now(),
  });
  const readNode = (node: ConsoleNode): Promise<NodeReport> => {
    const quarantinedUntil = states[node.index]?.quarantinedUntil;
    const watch = index.clusterOf(node.index);
    if (node.kind === "cluster" && watch)
      return readClusterNode(node, watch, config, deadlineMs, quarantinedUntil);
    if (node.kind === "cluster") return Promise.resolve(downNode(node, "no index of the cluster"));
    return withDeadline(readNodeInfo(node.client), deadlineMs).then(
      (raw) => {
        history?.markUp(node.index, processInfoOf(raw.info), Date.now());
        const restart = history
          ? restartReport(history.restartOf(node.index), node.index, restartContext())
          : null;
        return upNode(node, raw, config, quarantinedUntil, writeRates, restart);
      },
      (error: unknown) => downNode(node, error, history?.markDown(node.index, error, Date.now())),
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
      down: node.down ?? null,
      restart: node.restart ?? null,
    })),
  };
}
