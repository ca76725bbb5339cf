import "server-only";
/**
 * Per-node and quorum latency history, fed by the Redlock library's "operation" events, so the
 * charts show the probe and every manual action alike.
 */
import type {
  LatencyResponse,
  LatencySource,
  NodeLatencySample,
  QuorumLatencySample,
} from "@/lib/api";
import type { OperationEvent } from "@redlock-console/redlock";
import type { ConsoleNode } from "../node-registry";
import { RingBuffer } from "./ring-buffer";

/** 24 h of a probe every 10 s fits, plus room for manual actions. */
const CAPACITY = 10_000;
export const PROBE_PREFIX = "redlock:probe:";

export interface LatencyHistory {
  record(event: OperationEvent, at?: number): void;
  read(windowMs: number, probeIntervalMs: number): LatencyResponse;
}

/** A vote against for a reason other than "held by someone else" means the node did not answer. */
const answered = (vote: OperationEvent["nodes"][number]) =>
  vote.vote === "for" || vote.error?.name === "ResourceLockedError";

export function createLatencyHistory(nodes: readonly ConsoleNode[]): LatencyHistory {
  const perNode = nodes.map(() => new RingBuffer<NodeLatencySample>(CAPACITY));
  const quorum = new RingBuffer<QuorumLatencySample>(CAPACITY);
  return {
    record(event, at = Date.now()) {
      const source: LatencySource = event.resources.some((resource) =>
        resource.startsWith(PROBE_PREFIX),
      )
        ? "probe"
        : event.operation;
      quorum.push({ at, latencyMs: round(event.latencyMs), outcome: event.outcome, source });
      for (const vote of event.nodes) {
        perNode[vote.index]?.push({
          at,
          latencyMs: answered(vote) ? round(vote.latencyMs) : null,
          vote: vote.vote,
          source,
        });
      }
    },
    read(windowMs, probeIntervalMs) {
      const serverTime = Date.now();
      const since = serverTime - windowMs;
      return {
        serverTime,
        windowMs,
        probeIntervalMs,
        nodes: nodes.map((node, index) => ({
          nodeId: node.id,
          address: node.address,
          samples: perNode[index]!.toArray().filter((sample) => sample.at >= since),
        })),
        quorum: quorum.toArray().filter((sample) => sample.at >= since),
      };
    },
  };
}

const round = (ms: number) => Math.round(ms * 100) / 100;
