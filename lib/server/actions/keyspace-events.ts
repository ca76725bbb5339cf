import "server-only";
/**
 * The node card's admin action: turn on the keyspace events a polled node lacks, so the live index
 * follows it by notifications instead of passes. Only the missing flags are CONFIG SET; when the
 * node refuses (an ACL without +config|set, CONFIG renamed away), the answer carries the exact
 * command for an operator to run there. Audited either way, on every reachable node.
 */
import type { KeyspaceEventsResponse } from "@/lib/api";
import { ApiError } from "@/lib/api";
import type { ActionDeps } from "./deps";
import { missingEventFlags } from "../locks/watch/events/event-flags";
import { enableCommandFor, readEventFlags } from "../locks/watch/events/notify-config";
import { actorRecord, type Actor } from "./audited";

/** The node list and its watches (the index's), and the audit for the change. */
type KeyspaceEventsDeps = Pick<ActionDeps, "registry" | "index" | "audit">;

/** The node `nodeId` and its watch, or the 4xx saying why the action does not apply to it. */
function singleNodeOf(ctx: Pick<ActionDeps, "registry" | "index">, nodeId: string) {
  const index = ctx.registry.nodes.findIndex((node) => node.id === nodeId);
  if (index < 0) throw new ApiError("not_found", `no node "${nodeId}"`);
  const node = ctx.registry.nodes[index]!;
  const watch = ctx.index.watches[index]!;
  if (node.kind !== "single" || !watch.turnOnKeyspaceEvents)
    throw new ApiError(
      "invalid_request",
      `${nodeId} is a Redis Cluster: set notify-keyspace-events on each primary (CONFIG SET notify-keyspace-events on every one)`,
    );
  return { node, turnOn: () => watch.turnOnKeyspaceEvents!() };
}

/**
 * What the action would do, read from the node now and changing nothing (the confirmation shows
 * it): the flags it has, and the exact CONFIG SET that adds only those it lacks.
 */
export async function previewKeyspaceEvents(
  ctx: Pick<ActionDeps, "registry" | "index">,
  nodeId: string,
): Promise<KeyspaceEventsResponse> {
  const { node } = singleNodeOf(ctx, nodeId);
  const read = await readEventFlags(node.client);
  if (!read.ok)
    return { nodeId, outcome: "refused", from: null, to: null, command: null, error: read.reason };
  const lacking = missingEventFlags(read.flags).length > 0;
  return {
    nodeId,
    outcome: lacking ? "preview" : "already",
    from: read.flags,
    to: read.flags + missingEventFlags(read.flags).join(""),
    command: lacking ? enableCommandFor(read.flags) : null,
    error: null,
  };
}

export async function turnOnKeyspaceEventsAudited(
  ctx: KeyspaceEventsDeps,
  actor: Actor,
  nodeId: string,
): Promise<KeyspaceEventsResponse> {
  const turned = await singleNodeOf(ctx, nodeId).turnOn();
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
    ...actorRecord(actor, "admin"),
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
