import "server-only";
/**
 * `POST /api/sessions/{id}/release`: everything one holder session holds, in one audited action
 * ("this worker is wedged, free everything it took"). The locks are those the live index shows for
 * the session. As on the lock page, a session that is not gone is asked first: each lock gets a
 * revoke marker and a notice, all with one deadline; past it (or at once with `force: true`) each
 * lock is force-released as `POST /api/locks/force-release` does it (holder-release.ts), its notice
 * naming it. The session's liveness is read fresh before every batch of locks, never once for all.
 * A preview says what would be done and writes nothing.
 */
import { randomUUID } from "node:crypto";
import {
  DEFAULT_REVOKE_DEADLINE_MS,
  MAX_SESSION_RELEASE_LOCKS,
  type HolderSessionReleaseRequest,
  type HolderSessionReleaseResponse,
} from "@/lib/api";
import type { ActionDeps, FollowUpDeps } from "./deps";
import type { HolderReleaseDeps } from "./holder-release";
import { serviceOfValue } from "../auth/authorize";
import type { Principal } from "../auth/identity";
import { decideLock } from "../auth/policy";
import { ApiError } from "../errors";
import { describeLatin1Key } from "../locks/read/key-name";
import { isTombstone } from "../locks/read/tombstone";
import type { Liveness } from "../sessions/liveness";
import { readLiveness } from "../sessions/read-session";
import type { Actor } from "./audited";
import { assertWritableKey } from "../locks/read/lock-match";
import { assertWholeLock } from "./lock-scope";
import { auditSessionRelease } from "./release-session-audit";
import {
  actionFor,
  askSessionLock,
  forceSessionLock,
  inFreshBatches,
  type SessionLockRun,
} from "./release-session-lock";

export async function releaseSessionAudited(
  ctx: HolderReleaseDeps &
    FollowUpDeps &
    Pick<ActionDeps, "index" | "sessionHoldings" | "probe" | "metrics" | "config">,
  actor: Actor,
  sessionId: string,
  body: HolderSessionReleaseRequest,
): Promise<HolderSessionReleaseResponse> {
  const { index } = ctx;
  index.sweep();
  await ctx.sessionHoldings.caughtUp();
  const holdings = ctx.sessionHoldings.holdingsOf(sessionId);
  const releasing = holdings.filter((holding) => isTombstone(holding.value));
  const candidates = holdings.filter((holding) => !isTombstone(holding.value));
  const chosen = candidates.slice(0, MAX_SESSION_RELEASE_LOCKS);
  for (const { key } of chosen) assertWritableKey(ctx.config.lockMatch, Buffer.from(key, "latin1"));
  assertEveryLockInScope(actor.principal, chosen);
  // Each holder lets go of a whole lock at once: its resources past the chosen ones count too.
  for (const { key, value } of chosen)
    assertWholeLock(ctx, actor.principal, "release-session", key, value);
  const force = body.force ?? false;
  // Fresh from the nodes: deciding never trusts the index.
  const readNow = () => readLiveness(ctx.registry.nodes, sessionId, ctx.nodeDeadlineMs);
  const first = await readNow();
  const base = {
    sessionId,
    holderState: first.state,
    remaining: candidates.length - chosen.length,
    alreadyReleasing: releasing.length,
    indexComplete: index.complete,
    unreachableNodes: index.unreachableNodes(),
  };
  if (body.preview) {
    const action = actionFor(first, force);
    return {
      serverTime: Date.now(),
      ...base,
      preview: true,
      auditId: null,
      deadlineAt: null,
      // A force-release replaces a value with validity left by a tombstone, whatever the liveness.
      locks: chosen.map(({ key, value }) => ({
        ...describeLatin1Key(key),
        value,
        action,
        holderState: first.state,
        mode: "tombstoned" as const,
      })),
    };
  }
  if (chosen.length === 0 && releasing.length === 0 && first.lastSeenAt === null)
    throw new ApiError(
      "not_found",
      `No holder session ${sessionId}: no node has its heartbeat, and it holds nothing.`,
    );
  const askedAt = Date.now();
  const run: SessionLockRun = {
    ctx,
    sessionId,
    auditId: randomUUID(),
    by: actor.principal.label,
    reason: body.reason,
    askedAt,
    deadlineAt: askedAt + (body.deadlineMs ?? DEFAULT_REVOKE_DEADLINE_MS),
  };
  // The first batch decides on the read just made; every later batch reads again.
  let unused: Liveness | null = first;
  const fresh = async () => {
    const liveness = unused ?? (await readNow());
    unused = null;
    return liveness;
  };
  const results = await inFreshBatches(chosen, fresh, (holding, liveness) =>
    actionFor(liveness, force) === "ask"
      ? askSessionLock(run, holding, liveness)
      : forceSessionLock(run, holding, liveness),
  );
  void ctx.probe.runOnce();
  const locks = results.map((result) => result.lock);
  const asked = locks.some((lock) => lock.outcome === "asked");
  await auditSessionRelease(ctx, actor, {
    sessionId,
    auditId: run.auditId,
    holderState: first.state,
    reason: body.reason,
    results,
    deadlineAt: run.deadlineAt,
    remaining: base.remaining,
  });
  ctx.metrics.recordAction("release-session", "success");
  return {
    serverTime: Date.now(),
    ...base,
    preview: false,
    auditId: run.auditId,
    deadlineAt: asked ? run.deadlineAt : null,
    locks,
  };
}

/** Locks named in a refusal at most; the count says how many more. */
const NAMED_LOCKS_MAX = 10;

/**
 * Every lock the release would touch must be within one grant's scope: otherwise the whole request
 * is refused (403, nothing written), naming the locks out of scope. Each value is the one the
 * release compares on the nodes, so its service is the service of what would be written.
 */
function assertEveryLockInScope(
  principal: Principal,
  locks: ReadonlyArray<{ key: string; value: string }>,
): void {
  const refused = locks.flatMap(({ key, value }) => {
    const target = { resource: describeLatin1Key(key).resource, service: serviceOfValue(value) };
    const decision = decideLock(principal.grants, "release-session", target);
    return decision.allowed ? [] : [{ target, reason: decision.reason }];
  });
  if (refused.length === 0) return;
  const named = refused
    .slice(0, NAMED_LOCKS_MAX)
    .map(({ target }) =>
      target.service === null ? target.resource : `${target.resource} (service ${target.service})`,
    );
  const more =
    refused.length > NAMED_LOCKS_MAX ? ` and ${refused.length - NAMED_LOCKS_MAX} more` : "";
  throw new ApiError(
    "forbidden",
    `${refused.length} of this session's ${locks.length} lock(s) are outside your scope, so nothing was released: ${named.join(", ")}${more}. ${refused[0]!.reason}`,
  );
}
