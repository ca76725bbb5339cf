import "server-only";
/**
 * Force-release as the HTTP API runs it: the operation (holder-release.ts, as lib/api/unlock-rule.ts
 * decides: a tombstone, or the explicit delete-now, then the notice), one audit entry for whatever
 * wrote or may have written (nodes that did not answer are skipped, not waited for again), a
 * metric, a 409 with the per-node outcome when the value changed under the operator, and a 503 when
 * too few nodes answered for the write to reach a majority. A 409 that wrote nothing is counted in
 * the refusal log only (the route wrapper does it), as revoke's.
 */
import { randomUUID } from "node:crypto";
import type { ForceReleaseRequest, ForceReleaseResponse } from "@/lib/api";
import type { AuditRecord } from "../audit/audit-trail";
import type { ActionDeps, RecordDeps } from "./deps";
import { assertLockAction, checkAfterRead } from "../auth/authorize";
import { isRefusal } from "../auth/request-refusals";
import { ApiError } from "../errors";
import { describeKey } from "../locks/read/key-name";
import { actorRecord, type Actor } from "./audited";
import { keyOf } from "./force-release";
import { followUpPendingNodes } from "./force-release-follow-up";
import { assertWritableFormat } from "./read-only-formats";
import { assertWritableKey } from "../locks/read/lock-match";
import { assertWholeLock, type LockScopeDeps } from "./lock-scope";
import { releaseHolder, type HolderRelease, type HolderReleaseDeps } from "./holder-release";

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

/**
 * Some node's value had no lock format, no admin said `notALock: true`, and nothing was written:
 * the 409. (With force: true, nodes that held a lock were force-released as asked: a 200 that
 * says which nodes were left alone.)
 */
const refusedNotALock = (body: ForceReleaseRequest, { outcome }: HolderRelease) =>
  body.notALock !== true &&
  outcome.notALockCount > 0 &&
  outcome.deletedCount + outcome.tombstonedCount === 0;

/** What the answer and the audit say of values of no lock format ("" when there were none). */
function notALockWords(body: ForceReleaseRequest, { outcome }: HolderRelease): string {
  if (outcome.notALockCount === 0) return "";
  return body.notALock === true
    ? `not a lock: ${outcome.notALockCount} node(s) held a value of no lock format, acted on as an admin explicitly said (notALock: true); `
    : `not a lock: ${outcome.notALockCount} node(s) held a value of no lock format, left exactly as it was; `;
}

/** The failure's code before the audit line ("" for a success). */
function failureCode(body: ForceReleaseRequest, release: HolderRelease): string {
  const { outcome, quorumUnavailable } = release;
  if (refusedNotALock(body, release)) return "not_a_lock: ";
  if (outcome.valueChanged) return "value_changed: ";
  if (outcome.hashCount > 0) return "hash_lock_needs_delete_now: ";
  return quorumUnavailable ? "quorum_unavailable: " : "";
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
      : release.mode === "deleted"
        ? "compare-and-delete"
        : "compare-and-set of a tombstone";
  const failed =
    refusedNotALock(body, release) ||
    outcome.valueChanged ||
    outcome.hashCount > 0 ||
    release.quorumUnavailable;
  return {
    action: "force-release",
    ...actorRecord(actor, "operator"),
    resources: [outcome.resource],
    value: body.expectedValue ?? body.valueDigest ?? null,
    reason: body.reason,
    outcome: failed ? "failure" : "success",
    detail:
      `${failureCode(body, release)}${notALockWords(body, release)}${check}, ${release.why}` +
      (outcome.pendingNodeIds.length > 0
        ? `; no answer in time from ${outcome.pendingNodeIds.join(", ")}: a follow-up entry records what the queued write did there`
        : ""),
  };
}

/** Nothing written on any node, and no write sent to a node that did not answer. */
const wroteNothing = (outcome: HolderRelease["outcome"]) =>
  outcome.deletedCount + outcome.tombstonedCount === 0 && outcome.pendingNodeIds.length === 0;

/** The error the answer is, or null for a 200. */
function refusalOf(
  body: ForceReleaseRequest,
  release: HolderRelease,
  response: ForceReleaseResponse,
): ApiError | null {
  const details = { details: response };
  if (refusedNotALock(body, release)) {
    const message =
      "This key's value has no lock format (it may be an application's data under LOCK_MATCH), " +
      "judged on every node at the write: the console left it exactly as it was. An admin may " +
      "still act on it with notALock: true.";
    return new ApiError("not_a_lock", message, details);
  }
  if (release.outcome.valueChanged) {
    const message =
      "A node holds another value than expected: the lock changed hands since you looked.";
    return new ApiError("value_changed", message, details);
  }
  if (release.outcome.hashCount > 0)
    return new ApiError("hash_lock_needs_delete_now", release.summary, details);
  // As revoke: the holder's library acts only on a majority, so a write short of one (too many
  // nodes silent) has no defined outcome for it.
  if (release.quorumUnavailable)
    return new ApiError(
      "quorum_unavailable",
      `Too few nodes answered: ${release.summary}`,
      details,
    );
  return null;
}

/**
 * Force-release; a changed value is answered 409 with the per-node outcome, audited as a failure
 * only when something was written (or may have been, on a node that did not answer in time).
 */
export async function forceReleaseAudited(
  ctx: HolderReleaseDeps & RecordDeps & LockScopeDeps & Pick<ActionDeps, "config">,
  actor: Actor,
  body: ForceReleaseRequest,
): Promise<ForceReleaseResponse> {
  // The id is known before the write: the tombstone and the holder's notice carry it.
  const auditId = randomUUID();
  const key = keyOf(body);
  assertWritableKey(ctx.config.lockMatch, key);
  await assertWritableFormat(ctx, key);
  // The immediate delete is an admin's choice; a tombstone is an operator's. Either within scope.
  const deletes = body.disposal === "delete-now" || body.noSession === "release-now";
  const action = deletes ? "force-delete" : "force-release";
  const { resource } = describeKey(key);
  // Acting on a value of no lock format may destroy an application's data: an admin's explicit call.
  if (body.notALock === true)
    assertLockAction(actor.principal, "force-not-a-lock", { resource, service: null });
  const afterRead = checkAfterRead(actor.principal, action, resource, body.expectedValue);
  // The whole lock: every resource the same value holds, decided on the value that is written.
  await ctx.sessionHoldings.caughtUp();
  const wholeLock = (value: string | null) =>
    assertWholeLock(ctx, actor.principal, action, key.toString("latin1"), value);
  if (body.expectedValue !== undefined) wholeLock(body.expectedValue);
  const release = await releaseHolder(
    { ctx, by: actor.principal.label, auditId },
    {
      key,
      authorize: (holder) => {
        const value = holder ?? body.expectedValue ?? null;
        afterRead?.(value);
        if (body.expectedValue === undefined) wholeLock(value);
      },
      expectedValue: body.expectedValue,
      expectedDigest: body.valueDigest,
      noSession: body.noSession,
      disposal: body.disposal,
      notALock: body.notALock,
      reason: body.reason,
    },
  );
  const { outcome } = release;
  void ctx.probe.runOnce();
  const { deletedCount, tombstonedCount, reservedCount, valueChanged } = outcome;
  ctx.metrics.recordForceRelease(valueChanged ? "value_changed" : release.mode);
  const response: ForceReleaseResponse = {
    serverTime: Date.now(),
    resource: outcome.resource,
    mode: release.mode,
    holderState: release.holderState,
    deletedCount,
    tombstonedCount,
    reservedCount,
    reservedUntil: release.reservedUntil,
    overlapPossibleUntil: release.overlapPossibleUntil,
    majority: release.majority,
    summary: `${notALockWords(body, release)}${release.summary}`,
    nodes: outcome.nodes,
    auditId,
    notALockCount: outcome.notALockCount,
  };
  const refusal = refusalOf(body, release, response);
  // A 409 that wrote nothing and left no write queued is a refusal, not an action: the route
  // wrapper counts it in the refusal log, so a flood of them cannot evict actions (issue 49).
  if (refusal !== null && isRefusal(refusal) && wroteNothing(outcome)) throw refusal;
  const firstRecord = forceReleaseRecord(actor, body, release);
  await ctx.audit.append(firstRecord, outcome.silentNodeIds, auditId);
  const { outcome: _outcome, detail: _detail, ...followUpRecord } = firstRecord;
  // In the background: the answer must not wait for a paused node; the audit gets its outcome later.
  void followUpPendingNodes(ctx, auditId, outcome, followUpRecord);
  if (refusal !== null) throw refusal;
  return response;
}
