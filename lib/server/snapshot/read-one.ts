import "server-only";
/** `GET /api/locks/{resource}`: one key read fresh from every node, bypassing the shared snapshot. */
import type { LockResponse } from "@/lib/api";
import type { ConsoleNode } from "../node-registry";
import { readKeys } from "./read-node";
import { foldNodes } from "./snapshot";

export async function readOneLock(
  nodes: readonly ConsoleNode[],
  key: Buffer,
  quorumSize: number,
): Promise<LockResponse> {
  const serverTime = Date.now();
  const reads = await Promise.all(
    nodes.map((node) => readKeys(node.client, [key]).catch(() => undefined)),
  );
  const [row] = foldNodes(nodes, reads, quorumSize);
  return {
    serverTime,
    lock: row?.row ?? null,
    unreachableNodes: nodes.filter((_, index) => reads[index] === undefined).map((node) => node.id),
  };
}
