import "server-only";
/**
 * Force-release as the HTTP API runs it: the operation, then one audit entry whatever the outcome
 * (nodes that did not answer are skipped, not waited for again), a metric, and a 409 with the
 * per-node outcome when the value changed under the operator.
 */
import type { ForceReleaseRequest, ForceReleaseResponse } from "@/lib/api";
import type { AuditRecord } from "../audit/audit-trail";
import type { ConsoleContext } from "../console";
import { ApiError } from "../errors";
import type { Actor } from "./audited";
import { forceRelease, keyOf, type ForceReleaseOutcome } from "./force-release";
import { followUpPendingNodes } from "./force-release-follow-up";

function forceReleaseRecord(
  actor: Actor,
  body: ForceReleaseRequest,
  outcome: ForceReleaseOutcome,
): AuditRecord {
  const mode = body.expectedValue === undefined ? "force (any value)" : "compare-and-delete";
  const deleted = `deleted on ${outcome.deletedCount} node(s)`;
  return {
    action: "force-release",
    actor: actor.principal.label,
    clientIp: actor.clientIp,
    userAgent: actor.userAgent,
    resources: [outcome.resource],
    value: body.expectedValue ?? null,
    reason: body.reason,
    outcome: outcome.valueChanged ? "failure" : "success",
    detail:
      (outcome.valueChanged ? `value_changed: ${mode}, ${deleted}` : `${mode}: ${deleted}`) +
      (outcome.pendingNodeIds.length > 0
        ? `; no answer in time from ${outcome.pendingNodeIds.join(", ")}: a follow-up entry records what the queued delete did there`
        : ""),
  };
}

/** Force-release; a changed value is audited as a failure and answered 409 with the per-node outcome. */
export async function forceReleaseAudited(
  ctx: ConsoleContext,
  actor: Actor,
  body: ForceReleaseRequest,
): Promise<ForceReleaseResponse> {
  // Before the delete: the timeline then tells this hold's end as a force-release by this actor.
  ctx.timeline.markForceRelease(
    keyOf(body).toString("latin1"),
    actor.principal.label,
    body.reason,
    body.expectedValue ?? null,
  );
  const outcome = await forceRelease(ctx.registry.nodes, body, {
    deadlineMs: ctx.nodeDeadlineMs,
    isHung: ctx.isHung,
  });
  void ctx.probe.runOnce();
  const firstRecord = forceReleaseRecord(actor, body, outcome);
  const entry = await ctx.audit.append(firstRecord, outcome.silentNodeIds);
  const { outcome: _outcome, detail: _detail, ...followUpRecord } = firstRecord;
  // In the background: the answer must not wait for a paused node; the audit gets its outcome later.
  void followUpPendingNodes(ctx, entry.id, outcome, followUpRecord);
  const { deletedCount, valueChanged } = outcome;
  ctx.metrics.recordForceRelease(
    valueChanged ? "value_changed" : deletedCount > 0 ? "deleted" : "absent",
  );
  const response: ForceReleaseResponse = {
    serverTime: Date.now(),
    resource: outcome.resource,
    deletedCount,
    nodes: outcome.nodes,
    auditId: entry.id,
  };
  if (valueChanged) {
    const message =
      "A node holds another value than expected: the lock changed hands since you looked.";
    throw new ApiError("value_changed", message, response);
  }
  return response;
}
