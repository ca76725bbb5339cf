import "server-only";
/**
 * The node card's admin action: turn on the keyspace events a polled node lacks, so the live index
 * follows it by notifications instead of passes. Only the missing flags are CONFIG SET; when the
 * node refuses (an ACL without +config|set, CONFIG renamed away), the answer carries the exact
 * command for an operator to run there. Audited either way, on every reachable node.
 */
import type { KeyspaceEventsResponse } from "@/lib/api";
import { ApiError } from "@/lib/api/error-codes";
import type { ConsoleContext } from "../console";
import type { Actor } from "./audited";

export async function turnOnKeyspaceEventsAudited(
  ctx: ConsoleContext,
  actor: Actor,
  nodeId: string,
): Promise<KeyspaceEventsResponse> {
  const index = ctx.registry.nodes.findIndex((node) => node.id === nodeId);
  if (index < 0) throw new ApiError("not_found", `no node "${nodeId}"`);
  const watch = ctx.index.watches[index]!;
  if (!watch.turnOnKeyspaceEvents)
    throw new ApiError(
      "invalid_request",
      `${nodeId} is a Redis Cluster: set notify-keyspace-events on each primary (CONFIG SET notify-keyspace-events on every one)`,
    );
  const turned = await watch.turnOnKeyspaceEvents();
  const result: KeyspaceEventsResponse = turned.ok
    ? {
        nodeId,
        outcome: turned.from === turned.to ? "already" : "enabled",
        from: turned.from,
        to: turned.to,
        command: null,
        error: null,
      }
    : {
        nodeId,
        outcome: "refused",
        from: null,
        to: null,
        command: turned.command || null,
        error: turned.error,
      };
  await ctx.audit.append({
    action: "keyspace-events",
    actor: actor.principal.label,
    clientIp: actor.clientIp,
    userAgent: actor.userAgent,
    resources: [],
    value: null,
    reason: null,
    outcome: turned.ok ? "success" : "failure",
    detail: turned.ok
      ? `${nodeId}: notify-keyspace-events "${turned.from}" → "${turned.to}"`
      : `${nodeId}: CONFIG SET refused (${turned.error}); to run there: ${turned.command}`,
  });
  return result;
}
