/** The library's per-attempt stats, in the API's shape (node ids, error names without stacks). */
import type { Attempt } from "@/lib/api";
import { isResourceLockedError, type ExecutionStats } from "@redlock-console/redlock";
import { redactText } from "../logger";
import type { ConsoleNode } from "../node-registry";

export async function describeAttempts(
  attempts: ReadonlyArray<Promise<ExecutionStats>>,
  nodes: readonly ConsoleNode[],
): Promise<Attempt[]> {
  const stats = await Promise.all(attempts);
  return stats.map((attempt) => ({
    membershipSize: attempt.membershipSize,
    quorumSize: attempt.quorumSize,
    votesFor: attempt.nodes.filter((vote) => vote.vote === "for").length,
    votes: attempt.nodes.map((vote) => ({
      nodeId: nodes[vote.index]?.id ?? `node-${vote.index + 1}`,
      address: vote.address,
      vote: vote.vote,
      latencyMs: Math.round(vote.latencyMs * 100) / 100,
      ...(vote.error ? { error: `${vote.error.name}: ${redactText(vote.error.message)}` } : {}),
    })),
  }));
}

/**
 * A key of another type (a Redisson hash, a list) fails the scripts' GET with WRONGTYPE: the node
 * answered, and the key is not held with the request's value.
 */
const isWrongType = (error: Error | undefined) => error?.message.includes("WRONGTYPE") === true;

/** True when a node refused because the resource is held (as opposed to timing out or erroring). */
export async function refusedAsHeld(
  attempts: ReadonlyArray<Promise<ExecutionStats>>,
): Promise<boolean> {
  const stats = await Promise.all(attempts);
  return stats.some((attempt) =>
    attempt.nodes.some((vote) => isResourceLockedError(vote.error) || isWrongType(vote.error)),
  );
}
