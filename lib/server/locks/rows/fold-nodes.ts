import "server-only";
/**
 * Folding per-node reads into rows: read results for the one-resource read (read-one.ts), and the
 * live index's stored states one row at a time, when a page shows it (live-index.ts).
 */
import type { LockRow } from "@/lib/api";
import type { ConsoleNode } from "../../node-registry";
import { ASCII, describeKey, describeLatin1Key } from "../read/key-name";
import type { NodeKeyState } from "../read/key-state";
import { ownerOfValue } from "../read/ownership";
import type { IndexedState } from "../watch/store/node-store";
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

/**
 * The row of `key` (latin1 of its bytes) from what the index holds per node (null: absent,
 * undefined: unreachable), TTLs computed at `thresholds.serverTimeMs`; null when no node holds it.
 */
export function foldIndexed(
  key: string,
  reads: ReadonlyArray<IndexedState | null | undefined>,
  nodeIds: readonly string[],
  quorumSize: number,
  thresholds: FlagThresholds,
): LockRow | null {
  if (!reads.some(Boolean)) return null;
  const nowMs = thresholds.serverTimeMs;
  const perNode = reads.map((read): NodeKeyState | null | undefined => {
    if (!read) return read;
    const pttlMs = read.expiresAtMs < 0 ? -1 : read.expiresAtMs - nowMs;
    // Expired by the clock but not swept yet: the node no longer holds it.
    if (read.expiresAtMs >= 0 && pttlMs <= 0) return null;
    return {
      value: read.value,
      pttlMs,
      format: read.format,
      holdCount: read.holdCount,
      owner: read.legacyOwner ?? ownerOfValue(read.value),
      waiters: read.waiters ?? undefined,
      ...(read.cut && { cut: read.cut }),
    };
  });
  const named = describeLatin1Key(key);
  const folded = foldResource(named.resource, perNode, nodeIds, quorumSize, thresholds);
  return folded && { ...folded, ...named };
}
