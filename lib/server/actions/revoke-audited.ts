import "server-only";
/**
 * `POST /api/locks/revoke` as the HTTP API runs it: the holder must have a session (409
 * no_session: it can only be forced), the marker on the nodes still holding the value (409
 * value_changed otherwise; 503 when too few nodes answer to reach the holder's majority), the
 * notice, one audit entry once it wrote anything, and a follow-up that audits what the holder did
 * by the deadline. A refusal before any write is counted in the refusal log only (the route
 * wrapper does it): a flood of those cannot evict actions from the trail (issue 49).
 */
import { randomUUID } from "node:crypto";
import type { RevokeMarker } from "@redlock-console/redlock";
import { DEFAULT_REVOKE_DEADLINE_MS, type RevokeRequest, type RevokeResponse } from "@/lib/api";
import type { AuditRecord } from "../audit/audit-trail";
import { assertWritableFormat } from "./read-only-formats";
import type { ActionDeps, NodeDeps, RecordDeps } from "./deps";
import { assertWritableKey } from "../locks/read/lock-match";
import { assertWholeLock, type LockScopeDeps } from "./lock-scope";
import { assertLockAction, serviceOfValue } from "../auth/authorize";
import { ApiError } from "../errors";
import { describeKey } from "../locks/read/key-name";
import { sessionOfValue } from "../locks/read/ownership";
import { isTombstone } from "../locks/read/tombstone";
import { publishNotice } from "../sessions/notice";
import { actorRecord, type Actor } from "./audited";
import { keyOf } from "./force-release";
import { revokeOnNodes } from "./revoke";
import { followUpRevoke } from "./revoke-follow-up";

const NO_SESSION =
  "This holder has no session (its value carries no session id: another library, or session: false), so it cannot be asked to release: it can only be force-released.";

export async function revokeAudited(
  ctx: NodeDeps & RecordDeps & LockScopeDeps & Pick<ActionDeps, "config">,
  actor: Actor,
  body: RevokeRequest,
): Promise<RevokeResponse> {
  const key = keyOf(body);
  assertWritableKey(ctx.config.lockMatch, key);
  await assertWritableFormat(ctx, key);
  const { resource } = describeKey(key);
  // The marker is written only where the nodes hold exactly this value: its service is the lock's.
  assertLockAction(actor.principal, "revoke", {
    resource,
    service: serviceOfValue(body.expectedValue),
  });
  // The holder, asked, lets go of the whole lock: every resource the value holds is in scope.
  await ctx.sessionHoldings.caughtUp();
  assertWholeLock(ctx, actor.principal, "revoke", key.toString("latin1"), body.expectedValue);
  const auditId = randomUUID();
  const record = (outcome: "success" | "failure", detail: string): AuditRecord => ({
    action: "revoke",
    ...actorRecord(actor, "operator"),
    resources: [resource],
    value: body.expectedValue,
    reason: body.reason,
    outcome,
    detail,
  });
  const refuse = async (error: ApiError, skip?: ReadonlySet<string>): Promise<never> => {
    await ctx.audit.append(record("failure", `${error.code}: ${error.message}`), skip, auditId);
    ctx.metrics.recordAction("revoke", error.code);
    throw error;
  };
  /** Refused before any node was written: nothing to audit as an action. */
  const refuseUnwritten = (error: ApiError): never => {
    ctx.metrics.recordAction("revoke", error.code);
    throw error;
  };
  if (isTombstone(body.expectedValue))
    return refuseUnwritten(
      new ApiError(
        "value_changed",
        "The lock is already being force-released (its value is a tombstone): there is nothing left to ask.",
      ),
    );
  const sessionId = sessionOfValue(body.expectedValue);
  if (sessionId === null) return refuseUnwritten(new ApiError("no_session", NO_SESSION));

  const at = Date.now();
  const deadlineMs = body.deadlineMs ?? DEFAULT_REVOKE_DEADLINE_MS;
  const marker: RevokeMarker = {
    auditId,
    by: actor.principal.label,
    reason: body.reason,
    at,
    deadlineAt: at + deadlineMs,
    value: body.expectedValue,
  };
  const outcome = await revokeOnNodes(ctx.registry.nodes, key, marker, {
    deadlineMs: ctx.nodeDeadlineMs,
    isHung: ctx.isHung,
  });
  void ctx.probe.runOnce();
  const response: RevokeResponse = {
    serverTime: Date.now(),
    resource,
    auditId,
    deadlineAt: marker.deadlineAt,
    sessionId,
    nodes: outcome.nodes,
  };
  const { quorumSize } = ctx.registry;
  // A 409 with no marker anywhere and no write left queued is a refusal, not an action.
  const wroteNothing = outcome.markedCount === 0 && outcome.silentNodeIds.size === 0;
  const refuseAfterMarking = (error: ApiError) =>
    wroteNothing && error.code === "value_changed"
      ? refuseUnwritten(error)
      : refuse(error, outcome.silentNodeIds);
  if (outcome.valueChanged) {
    const message =
      "A node holds another value than expected: the lock changed hands since you looked.";
    return refuseAfterMarking(new ApiError("value_changed", message, { details: response }));
  }
  if (outcome.markedCount < quorumSize) {
    // The holder's library acts only on a majority of markers: fewer ask nobody.
    const unreachable = outcome.nodes.filter((node) => node.outcome === "unreachable").length;
    const error =
      outcome.markedCount + unreachable >= quorumSize
        ? new ApiError(
            "quorum_unavailable",
            `Marked on ${outcome.markedCount} node(s) only, ${unreachable} did not answer: the holder needs the marker on ${quorumSize}.`,
            { details: response },
          )
        : new ApiError(
            "value_changed",
            `The lock is no longer held with this value on a majority (${outcome.markedCount} of ${quorumSize} needed): it was released or expired.`,
            { details: response },
          );
    return refuseAfterMarking(error);
  }
  await publishNotice(
    ctx.registry.nodes,
    sessionId,
    { kind: "revoke", key, auditId },
    ctx.nodeDeadlineMs,
    outcome.silentNodeIds,
  );
  const first = record(
    "success",
    `revoke requested of holder session ${sessionId}: marked on ${outcome.markedCount} node(s), deadline in ${deadlineMs} ms`,
  );
  await ctx.audit.append(first, outcome.silentNodeIds, auditId);
  ctx.metrics.recordAction("revoke", "success");
  const { outcome: _outcome, detail: _detail, ...followUpRecord } = first;
  // In the background: the holder answers by the deadline, not before this response.
  void followUpRevoke(ctx, { key, marker, quorumSize }, followUpRecord);
  return response;
}
