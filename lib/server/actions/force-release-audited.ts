import "server-only";
/**
 * Force-release as the HTTP API runs it: the operation (holder-release.ts: by the holder's
 * liveness, tombstone or delete, then the notice), one audit entry whatever the outcome (nodes
 * that did not answer are skipped, not waited for again), a metric, and a 409 with the per-node
 * outcome when the value changed under the operator.
 */
import { randomUUID } from "node:crypto";
import type { ForceReleaseRequest, ForceReleaseResponse } from "@/lib/api";
import type { AuditRecord } from "../audit/audit-trail";
import type { ConsoleContext } from "../console";
import { ApiError } from "../errors";
import type { Actor } from "./audited";
import { keyOf } from "./force-release";
import { followUpPendingNodes } from "./force-release-follow-up";
import { releaseHolder, type HolderRelease } from "./holder-release";

/** "tombstoned on 5 node(s)", "deleted on 3 node(s)", or both. */
export function describeWrites(
  outcome: Pick<HolderRelease["outcome"], "deletedCount" | "tombstonedCount">,
): string {
  const parts = [
    ...(outcome.tombstonedCount > 0 || outcome.deletedCount === 0
      ? [`tombstoned on ${outcome.tombstonedCount} node(s)`]
      : []),
    ...(outcome.deletedCount > 0 || outcome.tombstonedCount === 0
      ? [`deleted on ${outcome.deletedCount} node(s)`]
      : []),
  ];
  return parts.join(", ");
}

function forceReleaseRecord(
  actor: Actor,
  body: ForceReleaseRequest,
  release: HolderRelease,
): AuditRecord {
  const { outcome } = release;
  const check =
    body.force === true
      ? "force (any value)"
      : release.mode === "tombstoned"
        ? "compare-and-set of a tombstone"
        : "compare-and-delete";
  const done =
    release.mode === "tombstoned"
      ? `${describeWrites(outcome)}: reserved until the holder acknowledges or its validity ends`
      : describeWrites(outcome);
  const summary = `${check}, ${release.why}: ${done}`;
  return {
    action: "force-release",
    actor: actor.principal.label,
    clientIp: actor.clientIp,
    userAgent: actor.userAgent,
    resources: [outcome.resource],
    value: body.expectedValue ?? body.valueDigest ?? null,
    reason: body.reason,
    outcome: outcome.valueChanged ? "failure" : "success",
    detail:
      (outcome.valueChanged ? `value_changed: ${summary}` : summary) +
      (outcome.pendingNodeIds.length > 0
        ? `; no answer in time from ${outcome.pendingNodeIds.join(", ")}: a follow-up entry records what the queued write did there`
        : ""),
  };
}

/** Force-release; a changed value is audited as a failure and answered 409 with the per-node outcome. */
export async function forceReleaseAudited(
  ctx: ConsoleContext,
  actor: Actor,
  body: ForceReleaseRequest,
): Promise<ForceReleaseResponse> {
  // The id is known before the write: the tombstone and the holder's notice carry it.
  const auditId = randomUUID();
  const release = await releaseHolder(
    { ctx, by: actor.principal.label, auditId },
    {
      key: keyOf(body),
      expectedValue: body.expectedValue,
      expectedDigest: body.valueDigest,
      noSession: body.noSession,
      reason: body.reason,
    },
  );
  const { outcome } = release;
  void ctx.probe.runOnce();
  const firstRecord = forceReleaseRecord(actor, body, release);
  const entry = await ctx.audit.append(firstRecord, outcome.silentNodeIds, auditId);
  const { outcome: _outcome, detail: _detail, ...followUpRecord } = firstRecord;
  // In the background: the answer must not wait for a paused node; the audit gets its outcome later.
  void followUpPendingNodes(ctx, entry.id, outcome, followUpRecord);
  const { deletedCount, tombstonedCount, valueChanged } = outcome;
  ctx.metrics.recordForceRelease(
    valueChanged
      ? "value_changed"
      : tombstonedCount > 0
        ? "tombstoned"
        : deletedCount > 0
          ? "deleted"
          : "absent",
  );
  const response: ForceReleaseResponse = {
    serverTime: Date.now(),
    resource: outcome.resource,
    mode: release.mode,
    holderState: release.holderState,
    deletedCount,
    tombstonedCount,
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
