import "server-only";
/**
 * One lock force-released as lib/api/unlock-rule.ts decides, without the audit entry (the caller
 * writes one, whose id the tombstone and the notice carry): shared by `POST
 * /api/locks/force-release` and the release of everything one holder session holds. The liveness
 * is read fresh from the nodes, never from the index, and only words depend on it: whatever it
 * reads, a value with validity left becomes a tombstone (issue 39: "gone" is a guess); only the
 * operator's explicit delete-now deletes. Then every session found is notified on every node.
 */
import { sessionOfValue } from "../locks/read/ownership";
import { decodeTombstone, isTombstone } from "../locks/read/tombstone";
import { publishNotice } from "../sessions/notice";
import { forceRelease } from "./force-release";
import {
  decideRelease,
  type Decided,
  type HolderReleaseContext,
  type HolderReleaseDeps,
  type HolderReleaseRequest,
} from "./holder-release-decide";

export type {
  HolderReleaseContext,
  HolderReleaseDeps,
  HolderReleaseRequest,
} from "./holder-release-decide";
import { settleRelease, type HolderRelease } from "./holder-release-outcome";

export type { HolderRelease } from "./holder-release-outcome";

export async function releaseHolder(
  context: HolderReleaseContext,
  request: HolderReleaseRequest,
): Promise<HolderRelease> {
  const { ctx, auditId } = context;
  const { key, expectedValue, expectedDigest } = request;
  const seen = expectedValue ?? null;
  const decided: Decided = {
    seen,
    sessionId: seen === null ? null : sessionOfValue(seen),
    holderState: null,
    unlockCase: null,
    quorumUnavailable: false,
    marked: false,
  };
  const outcome = await forceRelease(
    ctx.registry.nodes,
    { key, expectedValue, expectedDigest, notALock: request.notALock },
    {
      deadlineMs: ctx.nodeDeadlineMs,
      isHung: ctx.isHung,
      decide: (found) => {
        request.authorize?.(found.holder);
        return decideRelease(context, request, decided, found);
      },
    },
  );
  const release = settleRelease(outcome, {
    ...decided,
    quorumSize: ctx.registry.quorumSize,
    lifted:
      decided.seen !== null && isTombstone(decided.seen)
        ? (decodeTombstone(decided.seen)?.auditId ?? "")
        : null,
  });
  // The mark now names only what was removed (nothing: no mark), never a later holder's value.
  if (decided.marked)
    ctx.timeline.settleForceRelease(key.toString("latin1"), removedValues(release, decided.seen));
  // The holder of a lifted tombstone was told when it was laid.
  if (release.mode === "tombstoned" || (release.mode === "deleted" && release.lifted === null)) {
    const compared = expectedValue !== undefined || expectedDigest !== undefined;
    await notifyHolders(ctx, key, auditId, release, compared ? decided.sessionId : undefined);
  }
  return release;
}

/**
 * The values a force-release removed: the expected one wherever a node deleted or replaced it, or
 * was sent the write and has not answered (its queued write may still run: the follow-up audits
 * it); with force: any, what each node that deleted or replaced reported holding.
 */
function removedValues(release: HolderRelease, seen: string | null): string[] {
  const { outcome } = release;
  const removed = outcome.deletedCount + outcome.tombstonedCount > 0;
  if (seen !== null) return removed || outcome.pendingNodeIds.length > 0 ? [seen] : [];
  return outcome.nodes.flatMap((node) =>
    (node.outcome === "deleted" || node.outcome === "tombstoned") && node.value !== null
      ? [node.value]
      : [],
  );
}

/**
 * The notice to every session whose value was replaced or deleted: the holder's (`sessionId`,
 * null when it has none), or with force: true (undefined) each session a node's value named.
 */
async function notifyHolders(
  ctx: HolderReleaseDeps,
  key: Buffer,
  auditId: string,
  release: HolderRelease,
  sessionId: string | null | undefined,
): Promise<void> {
  const { outcome } = release;
  const sessions =
    sessionId !== undefined
      ? [sessionId]
      : outcome.nodes.flatMap((node) =>
          (node.outcome === "deleted" || node.outcome === "tombstoned") && node.value !== null
            ? [sessionOfValue(node.value)]
            : [],
        );
  const named = [...new Set(sessions)].filter((session) => session !== null);
  await Promise.all(
    named.map((session) =>
      publishNotice(
        ctx.registry.nodes,
        session,
        { kind: "force-release", key, auditId },
        ctx.nodeDeadlineMs,
        outcome.silentNodeIds,
      ),
    ),
  );
}
