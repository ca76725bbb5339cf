import "server-only";
/**
 * Opening the state store at start (issue 32 row 13): it must be none of the lock nodes, compared
 * by run_id (two URLs can name one server: `localhost` and `127.0.0.1`, a DNS alias, a port
 * forward); then its history is loaded, checked (stored-entries.ts), and what was skipped is logged.
 */
import { logger } from "../logger";
import { withDeadline, type ConsoleNode } from "../node-registry";
import { StateStoreRefusedError, type LoadedHistory, type StateStore } from "./state-store";

/** A single lock node's run_id; null when it does not answer (or is a cluster, whose shards differ). */
async function runIdOf(node: ConsoleNode, deadlineMs: number): Promise<string | null> {
  if (node.kind !== "single") return null;
  try {
    const info = await withDeadline(node.client.info("server"), deadlineMs);
    return /run_id:(\w+)/.exec(info)?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * The checked history; null when the store is a lock node (refused: logged as an error, never read
 * or written again). Rejects when the store does not answer. `opened` runs once the store is proven
 * none of the lock nodes, before the load (the replicas' lease: lib/server/replicas/).
 */
export async function openStateStore(
  store: StateStore,
  nodes: readonly ConsoleNode[],
  limit: number,
  deadlineMs: number,
  opened: () => Promise<void> = async () => {},
): Promise<LoadedHistory | null> {
  const runIds = await Promise.all(nodes.map((node) => runIdOf(node, deadlineMs)));
  try {
    await store.open(runIds);
  } catch (error) {
    if (!(error instanceof StateStoreRefusedError)) throw error;
    logger.error(error.message);
    return null;
  }
  await opened();
  const loaded = await store.load(limit);
  const skippedTotal = Object.values(loaded.skipped).reduce((sum, count) => sum + count, 0);
  if (skippedTotal > 0)
    logger.warn(
      { skipped: loaded.skipped, kept: loaded.transitions.length },
      "state store: entries that are no transition, out of id order, or dated after the store stamped them were skipped, not shown",
    );
  return loaded;
}
