import "server-only";
/**
 * One lock of a holder session's release (release-session.ts): asked to release (a revoke marker
 * with the release's one deadline, and a notice naming the lock) or force-released (as
 * `POST /api/locks/force-release` does it, holder-release.ts). And the batches they run in, each
 * deciding from the session's liveness read fresh just before it: a session that turns alive while
 * its locks are released is asked for the rest, never forced on a stale "gone".
 */
import type { RevokeMarker } from "@redlock-console/redlock";
import type { HolderSessionReleaseLock } from "@/lib/api";
import { describeLatin1Key } from "../locks/read/key-name";
import type { Liveness } from "../sessions/liveness";
import { publishNotice } from "../sessions/notice";
import { releaseHolder, type HolderRelease, type HolderReleaseDeps } from "./holder-release";
import { revokeOnNodes, type RevokeNodesOutcome } from "./revoke";

/** Locks acted on at once: each is a check and a write on every node. */
export const CONCURRENCY = 8;

/**
 * Runs `items` CONCURRENCY at a time; before each batch, `readLiveness` is called once and its
 * answer decides every item of that batch (a verdict never outlives the batch it was read for).
 */
export async function inFreshBatches<T, R>(
  items: readonly T[],
  readLiveness: () => Promise<Liveness>,
  run: (item: T, liveness: Liveness) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let at = 0; at < items.length; at += CONCURRENCY) {
    const liveness = await readLiveness();
    const batch = items.slice(at, at + CONCURRENCY);
    results.push(...(await Promise.all(batch.map((item) => run(item, liveness)))));
  }
  return results;
}

/** Ask unless the session reads gone (nothing would answer) or the operator forces. */
export const actionFor = (liveness: Liveness, force: boolean): "ask" | "force" =>
  force || liveness.state === "gone" ? "force" : "ask";

export interface SessionLockRun {
  readonly ctx: HolderReleaseDeps;
  readonly sessionId: string;
  readonly auditId: string;
  /** The actor's audit label. */
  readonly by: string;
  readonly reason: string;
  /** The one deadline of every lock asked (epoch ms), and when the asking began. */
  readonly askedAt: number;
  readonly deadlineAt: number;
}

/** What one lock's release did, with what the audit and the follow-ups need. */
export type SessionLockResult =
  | {
      readonly kind: "force";
      readonly lock: HolderSessionReleaseLock;
      readonly release: HolderRelease;
    }
  | {
      readonly kind: "ask";
      readonly key: Buffer;
      readonly lock: HolderSessionReleaseLock;
      readonly marker: RevokeMarker;
      readonly revoke: RevokeNodesOutcome;
    };

export async function forceSessionLock(
  run: SessionLockRun,
  { key, value }: { key: string; value: string },
  liveness: Liveness,
): Promise<SessionLockResult> {
  const release = await releaseHolder(
    { ctx: run.ctx, by: run.by, auditId: run.auditId, known: new Map([[run.sessionId, liveness]]) },
    { key: Buffer.from(key, "latin1"), expectedValue: value, reason: run.reason },
  );
  const { outcome } = release;
  const lock: HolderSessionReleaseLock = {
    ...describeLatin1Key(key),
    value,
    action: "force",
    holderState: liveness.state,
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
  return { kind: "force", lock, release };
}

export async function askSessionLock(
  run: SessionLockRun,
  { key, value }: { key: string; value: string },
  liveness: Liveness,
): Promise<SessionLockResult> {
  const { ctx } = run;
  const keyBytes = Buffer.from(key, "latin1");
  const marker: RevokeMarker = {
    auditId: run.auditId,
    by: run.by,
    reason: run.reason,
    at: run.askedAt,
    deadlineAt: run.deadlineAt,
    value,
  };
  const revoke = await revokeOnNodes(ctx.registry.nodes, keyBytes, marker, {
    deadlineMs: ctx.nodeDeadlineMs,
    isHung: ctx.isHung,
  });
  const { quorumSize } = ctx.registry;
  const unreachable = revoke.nodes.filter((node) => node.outcome === "unreachable").length;
  const outcome = revoke.valueChanged
    ? "value_changed"
    : revoke.markedCount >= quorumSize
      ? "asked"
      : revoke.markedCount + unreachable >= quorumSize
        ? "unavailable"
        : "absent";
  // The holder's library acts only on a majority of markers: the notice is sent only then.
  if (outcome === "asked")
    await publishNotice(
      ctx.registry.nodes,
      run.sessionId,
      { kind: "revoke", key: keyBytes, auditId: run.auditId },
      ctx.nodeDeadlineMs,
      revoke.silentNodeIds,
    );
  const lock: HolderSessionReleaseLock = {
    ...describeLatin1Key(key),
    value,
    action: "ask",
    holderState: liveness.state,
    // Past the deadline, a force-release replaces the value with a tombstone.
    mode: "tombstoned",
    outcome,
    markedCount: revoke.markedCount,
    nodes: revoke.nodes,
  };
  return { kind: "ask", key: keyBytes, lock, marker, revoke };
}
