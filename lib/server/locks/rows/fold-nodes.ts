import "server-only";
/**
 * Folding per-node reads into rows, for the one-resource read (read-one.ts); the live index folds
 * its rows one at a time (live-index.ts).
 */
import type { LockRow } from "@/lib/api";
import type { ConsoleNode } from "../../node-registry";
import { ASCII, describeKey } from "../read/key-name";
import type { NodeKeyState } from "../read/key-state";
import { foldResource, type FlagThresholds } from "./fold";

export interface SnapshotRow {
  /** The key's exact bytes as a latin1 string: sorts like the bytes. */
  readonly sortKey: string;
  readonly row: LockRow;
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

/** When rows are flagged as long-held or long-waited, in ms. */
export type FlagLimits = Omit<FlagThresholds, "serverTimeMs">;
