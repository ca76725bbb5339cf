import "server-only";
/**
 * The waiters lists of locks that show free while waits on them are live. The live index reads a
 * waiters list only with its lock, so once the lock is gone (released, and the next holder took
 * and released it between two reads) the waits' ends would go unseen: each tick, at most
 * PROBED_PER_TICK such lists are read, one ZRANGEBYSCORE per node. Only locks that vanished with
 * waiters are read, never on a viewer's request.
 */
import { waitersKey } from "@redlock-console/redlock";
import { WAITERS_LISTED } from "../locks/read/ownership";
import { parseWaiterList, type WaiterRef } from "../locks/read/waiter-list";
import { withDeadline, type ConsoleNode } from "../node-registry";

export const PROBED_PER_TICK = 64;

/** The live entries of `key`'s waiters list, the union over the nodes that answered; null if none did. */
export async function probeWaiters(
  nodes: readonly ConsoleNode[],
  key: string,
  deadlineMs: number,
): Promise<Map<string, WaiterRef> | null> {
  const name = waitersKey(Buffer.from(key, "latin1"));
  const nowMs = Date.now();
  const replies = await Promise.all(
    nodes.map((node) =>
      withDeadline(
        node.client.zrangebyscore(name, nowMs, "+inf", "WITHSCORES", "LIMIT", 0, WAITERS_LISTED),
        deadlineMs,
      ).catch(() => null),
    ),
  );
  if (replies.every((reply) => reply === null)) return null;
  const listed = new Map<string, WaiterRef>();
  for (const reply of replies)
    for (const ref of parseWaiterList(reply) ?? []) listed.set(ref.id, ref);
  return listed;
}
