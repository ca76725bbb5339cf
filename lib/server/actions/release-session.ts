import "server-only";
/**
 * `POST /api/sessions/{id}/release`: everything one holder session holds, force-released in one
 * audited action ("this worker is wedged, free everything it took"). The locks are those the live
 * index shows for the session; each is then force-released as `POST /api/locks/force-release`
 * does it (holder-release.ts: compared on every node against the value shown, tombstoned or deleted
 * by the session's liveness, read once, fresh, for all of them; the session notified). A preview
 * says what would be done and writes nothing.
 */
import { randomUUID } from "node:crypto";
import {
  MAX_SESSION_RELEASE_LOCKS,
  type HolderSessionReleaseLock,
  type HolderSessionReleaseRequest,
  type HolderSessionReleaseResponse,
} from "@/lib/api";
import type { ConsoleContext } from "../console";
import { ApiError } from "../errors";
import { describeLatin1Key } from "../locks/read/key-name";
import { isTombstone } from "../locks/read/tombstone";
import { holdingsBySession } from "../sessions/holdings";
import { readLiveness } from "../sessions/read-session";
import type { Actor } from "./audited";
import { describeWrites } from "./force-release-audited";
import { followUpPendingNodes } from "./force-release-follow-up";
import { releaseHolder, type HolderRelease } from "./holder-release";

/** Locks released at once: each is a check and a write on every node. */
const CONCURRENCY = 8;
/** Resources named in the audit entry at most (the detail counts the rest). */
const AUDITED_RESOURCES = 64;

async function inBatches<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let at = 0; at < items.length; at += CONCURRENCY)
    results.push(...(await Promise.all(items.slice(at, at + CONCURRENCY).map(run))));
  return results;
}

function lockResult(key: string, value: string, release: HolderRelease): HolderSessionReleaseLock {
  const { outcome } = release;
  return {
    ...describeLatin1Key(key),
    value,
    mode: release.mode,
    outcome: outcome.valueChanged
      ? "value_changed"
      : outcome.deletedCount + outcome.tombstonedCount > 0
        ? "released"
        : "absent",
    deletedCount: outcome.deletedCount,
    tombstonedCount: outcome.tombstonedCount,
    nodes: outcome.nodes,
  };
}

export async function releaseSessionAudited(
  ctx: ConsoleContext,
  actor: Actor,
  sessionId: string,
  body: HolderSessionReleaseRequest,
): Promise<HolderSessionReleaseResponse> {
  const { index } = ctx;
  index.sweep();
  const holdings = (await holdingsBySession(index, sessionId)).get(sessionId) ?? [];
  const releasing = holdings.filter((holding) => isTombstone(holding.value));
  const candidates = holdings.filter((holding) => !isTombstone(holding.value));
  const chosen = candidates.slice(0, MAX_SESSION_RELEASE_LOCKS);
  // Read once, fresh from the nodes, for every lock: deciding never trusts the index.
  const liveness = await readLiveness(ctx.registry.nodes, sessionId, ctx.nodeDeadlineMs);
  const base = {
    sessionId,
    holderState: liveness.state,
    remaining: candidates.length - chosen.length,
    alreadyReleasing: releasing.length,
    indexComplete: index.complete,
    unreachableNodes: index.unreachableNodes(),
  };
  if (body.preview) {
    const mode = liveness.state === "gone" ? "deleted" : "tombstoned";
    return {
      serverTime: Date.now(),
      ...base,
      preview: true,
      auditId: null,
      locks: chosen.map(({ key, value }) => ({ ...describeLatin1Key(key), value, mode })),
    };
  }
  if (chosen.length === 0 && releasing.length === 0 && liveness.lastSeenAt === null)
    throw new ApiError(
      "not_found",
      `No holder session ${sessionId}: no node has its heartbeat, and it holds nothing.`,
    );
  const auditId = randomUUID();
  const known = new Map([[sessionId, liveness]]);
  const releases = await inBatches(chosen, async ({ key, value }) => ({
    key,
    value,
    release: await releaseHolder(
      { ctx, by: actor.principal.label, auditId, known },
      { key: Buffer.from(key, "latin1"), expectedValue: value, reason: body.reason },
    ),
  }));
  void ctx.probe.runOnce();
  const locks = releases.map(({ key, value, release }) => lockResult(key, value, release));
  const count = (outcome: HolderSessionReleaseLock["outcome"]) =>
    locks.filter((lock) => lock.outcome === outcome).length;
  const resources = locks.map((lock) => lock.resource);
  const silent = new Set(releases.flatMap(({ release }) => [...release.outcome.silentNodeIds]));
  const record = {
    action: "release-session" as const,
    actor: actor.principal.label,
    clientIp: actor.clientIp,
    userAgent: actor.userAgent,
    resources: resources.slice(0, AUDITED_RESOURCES),
    value: null,
    reason: body.reason,
  };
  const detail =
    `holder session ${sessionId} (${liveness.state}): ${locks.length} lock(s): ` +
    `${count("released")} released (${describeWrites(sumOf(releases))}), ` +
    `${count("value_changed")} changed since (left alone), ${count("absent")} already gone` +
    (resources.length > AUDITED_RESOURCES
      ? `; ${resources.length - AUDITED_RESOURCES} more resource(s) not named here`
      : "") +
    (base.remaining > 0 ? `; ${base.remaining} more lock(s) left for another release` : "");
  const entry = await ctx.audit.append(
    { ...record, outcome: count("value_changed") > 0 ? "failure" : "success", detail },
    silent,
    auditId,
  );
  for (const { key, release } of releases) {
    if (release.outcome.pendingNodeIds.length > 0)
      void followUpPendingNodes(ctx, entry.id, release.outcome, {
        ...record,
        resources: [describeLatin1Key(key).resource],
      });
  }
  ctx.metrics.recordAction("release-session", "success");
  return { serverTime: Date.now(), ...base, preview: false, auditId, locks };
}

/** The write counts of every release, summed (for the audit line). */
function sumOf(releases: ReadonlyArray<{ release: HolderRelease }>) {
  const sum = (field: "deletedCount" | "tombstonedCount") =>
    releases.reduce((total, { release }) => total + release.outcome[field], 0);
  return { deletedCount: sum("deletedCount"), tombstonedCount: sum("tombstonedCount") };
}
