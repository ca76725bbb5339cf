import "server-only";
/**
 * A node's last restart as the report carries it: when, whether it came back empty, and the held
 * locks it lacks by how many nodes still hold them, plus the warning that says so with its fix.
 * Shown while recent, or for as long as any held lock lacks the node.
 */
import { lackingWords, restartFix, type NodeRestart, type NodeWarning } from "@/lib/api";
import type { RestartSeen } from "./node-history";
import { locksLacking, type MarginIndex } from "./restart-margin";

/** A restart this recent is reported even when no lock lacks the node (any more). */
const RECENT_RESTART_MS = 15 * 60_000;

export interface RestartContext {
  readonly index: MarginIndex;
  readonly nodeCount: number;
  readonly quorumSize: number;
  readonly restartQuarantineMs: number;
  readonly nowMs: number;
}

const clockTime = (epochMs: number) => `${new Date(epochMs).toISOString().slice(11, 19)} UTC`;

export function restartReport(
  seen: RestartSeen | null,
  nodeIndex: number,
  context: RestartContext,
): { restart: NodeRestart; warning: NodeWarning } | null {
  if (!seen) return null;
  const locksLackingNow = locksLacking(context.index, nodeIndex, context.nowMs);
  const lockCount = locksLackingNow.reduce((total, margin) => total + margin.locks, 0);
  if (lockCount === 0 && context.nowMs - seen.atMs > RECENT_RESTART_MS) return null;
  const how =
    seen.emptyKeyspace === true
      ? " with an empty keyspace"
      : seen.emptyKeyspace === false
        ? " (it reloaded its AOF or RDB)"
        : "";
  return {
    restart: {
      fix: restartFix(context.restartQuarantineMs),
      atMs: seen.atMs,
      emptyKeyspace: seen.emptyKeyspace,
      locksLacking: locksLackingNow,
      lockCount,
    },
    warning: {
      code: "restarted",
      category: "restart",
      message: `Restarted at ${clockTime(seen.atMs)}${how}: ${lackingWords(locksLackingNow, context.nodeCount, context.quorumSize)}. ${restartFix(context.restartQuarantineMs)}`,
    },
  };
}
