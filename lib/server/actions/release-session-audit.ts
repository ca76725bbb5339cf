import "server-only";
/**
 * The audit of a holder session's release: one entry for the whole action (release-session.ts),
 * then per lock the follow-ups of what is still unknown: a node that did not answer a force-release
 * in time, and what the holder did by the deadline of an ask (revoke-follow-up.ts).
 */
import type { HolderSessionReleaseLock } from "@/lib/api";
import type { AuditRecord } from "../audit/audit-trail";
import type { FollowUpDeps } from "./deps";
import { actorRecord, type Actor } from "./audited";
import { describeWrites } from "./force-release-audited";
import { followUpPendingNodes } from "./force-release-follow-up";
import type { SessionLockResult } from "./release-session-lock";
import { followUpRevoke } from "./revoke-follow-up";

/** Resources named in the audit entry at most (the detail counts the rest). */
const AUDITED_RESOURCES = 64;

export interface SessionReleaseSummary {
  readonly sessionId: string;
  readonly auditId: string;
  readonly holderState: string;
  readonly reason: string;
  readonly results: readonly SessionLockResult[];
  readonly deadlineAt: number;
  /** Locks beyond the release's cap, left for another release. */
  readonly remaining: number;
}

function detailOf(summary: SessionReleaseSummary): string {
  const locks = summary.results.map((result) => result.lock);
  const count = (outcome: HolderSessionReleaseLock["outcome"]) =>
    locks.filter((lock) => lock.outcome === outcome).length;
  const writes = (field: "deletedCount" | "tombstonedCount") =>
    locks.reduce((total, lock) => total + (lock.action === "force" ? (lock[field] ?? 0) : 0), 0);
  const asked = count("asked");
  return (
    `holder session ${summary.sessionId} (${summary.holderState}): ${locks.length} lock(s): ` +
    (asked > 0
      ? `${asked} asked to release by ${new Date(summary.deadlineAt).toISOString()}, `
      : "") +
    `${count("released")} released (${describeWrites({ deletedCount: writes("deletedCount"), tombstonedCount: writes("tombstonedCount") })}), ` +
    `${count("value_changed")} changed since (left alone), ${count("absent")} already gone` +
    (count("unavailable") > 0
      ? `, ${count("unavailable")} not asked (too few nodes answered)`
      : "") +
    (locks.length > AUDITED_RESOURCES
      ? `; ${locks.length - AUDITED_RESOURCES} more resource(s) not named here`
      : "") +
    (summary.remaining > 0 ? `; ${summary.remaining} more lock(s) left for another release` : "")
  );
}

/** Writes the release's one entry, then starts every follow-up in the background. */
export async function auditSessionRelease(
  ctx: FollowUpDeps,
  actor: Actor,
  summary: SessionReleaseSummary,
): Promise<void> {
  const locks = summary.results.map((result) => result.lock);
  const record: Omit<AuditRecord, "outcome" | "detail"> = {
    action: "release-session",
    ...actorRecord(actor, "operator"),
    resources: locks.slice(0, AUDITED_RESOURCES).map((lock) => lock.resource),
    value: null,
    reason: summary.reason,
  };
  const failed = locks.some(
    (lock) => lock.outcome === "value_changed" || lock.outcome === "unavailable",
  );
  const silent = new Set(
    summary.results.flatMap((result) =>
      result.kind === "force"
        ? [...result.release.outcome.silentNodeIds]
        : [...result.revoke.silentNodeIds],
    ),
  );
  const entry = await ctx.audit.append(
    { ...record, outcome: failed ? "failure" : "success", detail: detailOf(summary) },
    silent,
    summary.auditId,
  );
  for (const result of summary.results) {
    const perLock = { ...record, resources: [result.lock.resource] };
    if (result.kind === "force" && result.release.outcome.pendingNodeIds.length > 0)
      void followUpPendingNodes(ctx, entry.id, result.release.outcome, perLock);
    if (result.kind === "ask" && result.lock.outcome === "asked")
      void followUpRevoke(
        ctx,
        {
          key: result.key,
          marker: result.marker,
          quorumSize: ctx.registry.quorumSize,
        },
        perLock,
      );
  }
}
