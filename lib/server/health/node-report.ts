import "server-only";
/** One single server's entry in the node report: up (from its INFO) or down (with why and since when). */
import type { NodeInfo } from "@/lib/api";
import type { ConsoleConfig } from "../config";
import { redactText } from "../logger";
import type { ConsoleNode } from "../node-registry";
import type { DownState } from "./node-history";
import type { RawNodeInfo } from "./read-node-info";
import type { restartReport } from "./restart-report";
import { nodeWarnings } from "./warnings";
import type { WriteRateMeter } from "./write-rate";

export const numberOrNull = (text: string | undefined) =>
  text === undefined || text === "" ? null : Number(text);

export function keyCount(info: Record<string, string>, db: number): number | null {
  const keyspace = info[`db${db}`];
  if (keyspace === undefined) return 0;
  return numberOrNull(/keys=(\d+)/.exec(keyspace)?.[1]);
}

export const errorText = (error: unknown) =>
  redactText(error instanceof Error ? error.message : String(error));

export type NodeReport = Omit<NodeInfo, "index">;

export function downNode(node: ConsoleNode, error: unknown, down?: DownState): NodeReport {
  const message = down ? redactText(down.cause.message) : errorText(error);
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
    down: down ? { sinceMs: down.sinceMs, cause: down.cause.kind, message } : null,
    warnings: [
      { code: "unreachable", category: "down", message: `The node did not answer: ${message}` },
    ],
  };
}

export function upNode(
  node: ConsoleNode,
  raw: RawNodeInfo,
  config: ConsoleConfig,
  quarantinedUntil: number | undefined,
  writeRates: WriteRateMeter | undefined,
  restart: ReturnType<typeof restartReport>,
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
    down: null,
    restart: restart?.restart ?? null,
    warnings: [
      ...(restart ? [restart.warning] : []),
      ...nodeWarnings(raw, {
        restartQuarantineMs: config.restartQuarantineMs,
        clockSkewWarnMs: config.clockSkewWarnMs,
      }),
    ],
    writeRate: writeRates?.sample(node.id, info, Date.now()) ?? null,
  };
}
