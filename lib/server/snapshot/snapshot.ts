import "server-only";
/**
 * The shared lock snapshot: every node read in parallel, folded per resource, sorted by key bytes,
 * and served to all viewers from one single-flight scan per interval (pages are cut in page.ts).
 */
import type { LockCounts, LockRow } from "@/lib/api";
import type { ConsoleNode } from "../node-registry";
import { foldResource, type FlagThresholds, type NodeKeyState } from "./fold";
import { readNode, type NodeScan } from "./read-node";

export interface SnapshotRow {
  /** The key's exact bytes as a latin1 string: sorts like the bytes. */
  readonly sortKey: string;
  readonly row: LockRow;
}

export interface Snapshot {
  readonly serverTime: number;
  readonly scanMs: number;
  readonly rows: readonly SnapshotRow[];
  readonly counts: LockCounts;
  readonly unreachableNodes: string[];
  readonly truncated: boolean;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
// eslint-disable-next-line no-control-regex -- control characters are valid in keys and ASCII
const ASCII = /^[\x00-\x7f]*$/;

/** The display name of a key, plus its base64 when its bytes are not valid UTF-8. */
export function describeKey(key: Buffer): Pick<LockRow, "resource" | "resourceBase64"> {
  try {
    return { resource: strictUtf8.decode(key) };
  } catch {
    return { resource: key.toString("utf8"), resourceBase64: key.toString("base64") };
  }
}

/** Folds per-node reads (undefined: node unreachable) into sorted rows. */
export function foldNodes(
  nodes: readonly ConsoleNode[],
  reads: ReadonlyArray<Map<string, NodeKeyState> | undefined>,
  quorumSize: number,
  thresholds?: FlagThresholds,
): SnapshotRow[] {
  const allKeys = new Set<string>();
  for (const read of reads) for (const key of read?.keys() ?? []) allKeys.add(key);
  const nodeIds = nodes.map((node) => node.id);
  const rows: SnapshotRow[] = [];
  for (const sortKey of allKeys) {
    const perNode = reads.map((read) =>
      read === undefined ? undefined : (read.get(sortKey) ?? null),
    );
    // ASCII keys (nearly all) read the same in latin1 and UTF-8: skip the decoder for them.
    const named = ASCII.test(sortKey)
      ? { resource: sortKey }
      : describeKey(Buffer.from(sortKey, "latin1"));
    const folded = foldResource(named.resource, perNode, nodeIds, quorumSize, thresholds);
    if (folded) rows.push({ sortKey, row: { ...folded, ...named } });
  }
  return rows.sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
}

function countStates(rows: readonly SnapshotRow[]): LockCounts {
  const counts: LockCounts = { held: 0, partial: 0, conflict: 0 };
  for (const { row } of rows) counts[row.state] += 1;
  return counts;
}

/** When rows are flagged as long-held or long-waited, in ms. */
export type FlagLimits = Omit<FlagThresholds, "serverTimeMs">;

export async function takeSnapshot(
  nodes: readonly ConsoleNode[],
  patterns: readonly string[],
  maxKeys: number,
  quorumSize: number,
  limits?: FlagLimits,
): Promise<Snapshot> {
  const startedAt = performance.now();
  const serverTime = Date.now();
  const scans = await Promise.all(
    nodes.map((node) =>
      readNode(node.client, patterns, maxKeys).catch((): NodeScan | undefined => undefined),
    ),
  );
  const rows = foldNodes(
    nodes,
    scans.map((scan) => scan?.keys),
    quorumSize,
    limits && { ...limits, serverTimeMs: serverTime },
  );
  return {
    serverTime,
    scanMs: Math.round(performance.now() - startedAt),
    rows,
    counts: countStates(rows),
    unreachableNodes: nodes.filter((_, index) => scans[index] === undefined).map((node) => node.id),
    truncated: scans.some((scan) => scan?.truncated === true),
  };
}
