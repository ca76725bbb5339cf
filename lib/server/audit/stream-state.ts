import "server-only";
/**
 * How full an audit stream is, read beside each audit answer so that an admin hears before the
 * trail drops entries: the longest copy among the nodes, the agreed length cap and retention
 * (stream-append.ts), and the oldest entry's time (its stream id: the node's clock). Three
 * O(1) commands per node.
 */
import { AUDIT_FILL_WARN_PERCENT, type AuditStreamState } from "@/lib/api";
import { withDeadline, type ConsoleNode } from "../node-registry";
import { DAY_MS, retentionKeyOf, type StreamRetention } from "./stream-append";

interface NodeState {
  readonly length: number;
  readonly oldestAt: number | null;
  readonly maxLen: number;
  readonly retentionMs: number;
}

async function nodeState(
  node: ConsoleNode,
  stream: string,
  deadlineMs: number,
): Promise<NodeState | undefined> {
  try {
    const [length, oldest, agreed] = await withDeadline(
      Promise.all([
        node.client.xlen(stream),
        node.client.xrange(stream, "-", "+", "COUNT", 1),
        node.client.hmget(retentionKeyOf(stream), "maxLen", "retentionMs"),
      ]),
      deadlineMs,
    );
    const oldestId = oldest[0]?.[0];
    return {
      length,
      oldestAt: oldestId === undefined ? null : Number(oldestId.split("-")[0]),
      maxLen: Number(agreed[0] ?? 0),
      retentionMs: Number(agreed[1] ?? 0),
    };
  } catch {
    return undefined;
  }
}

export async function readStreamState(
  nodes: readonly ConsoleNode[],
  stream: string,
  configured: StreamRetention,
  deadlineMs: number,
  /** The setting that raises the cap, named in the warning. */
  maxLenVar: string,
): Promise<AuditStreamState> {
  const states = (
    await Promise.all(nodes.map((node) => nodeState(node, stream, deadlineMs)))
  ).filter((state) => state !== undefined);
  const length = Math.max(0, ...states.map((state) => state.length));
  const maxLen = Math.max(configured.maxLen, ...states.map((state) => state.maxLen));
  const retentionMs = Math.max(
    configured.retentionDays * DAY_MS,
    ...states.map((state) => state.retentionMs),
  );
  const oldest = states.flatMap((state) => (state.oldestAt === null ? [] : [state.oldestAt]));
  const oldestAt = oldest.length === 0 ? null : Math.min(...oldest);
  const fillPercent = Math.round((length / maxLen) * 1000) / 10;
  const warning =
    fillPercent < AUDIT_FILL_WARN_PERCENT
      ? null
      : `${stream} holds ${length} entries, ${fillPercent}% of its cap of ${maxLen}: beyond it the oldest entries${oldestAt === null ? "" : ` (from ${new Date(oldestAt).toISOString()})`} are dropped. Raise ${maxLenVar} on every replica, or export the trail.`;
  return {
    length,
    maxLen,
    retentionDays: retentionMs / DAY_MS,
    fillPercent,
    oldestAt,
    warning,
  };
}
