import "server-only";
/**
 * One lock force-released by its holder's liveness (docs/holder-sessions.md), without the audit
 * entry (the caller writes one, whose id the tombstone and the notice carry): shared by
 * `POST /api/locks/force-release` and the release of everything one holder session holds.
 * The liveness is read fresh from the nodes, never from the index: alive or unresponsive → the value
 * is replaced by a tombstone; gone → deleted; no session → as the operator chose; a Redisson hash
 * lock → deleted (never tombstoned); `force: true` → any value deleted. Then the holder's session
 * is notified on every node.
 */
import type { ForceReleaseMode, HolderSessionState, NoSessionChoice } from "@/lib/api";
import type { ConsoleContext } from "../console";
import { ApiError } from "../errors";
import { ownerOfValue, sessionOfValue } from "../locks/read/ownership";
import { decodeTombstone, encodeTombstone, isTombstone } from "../locks/read/tombstone";
import type { Liveness } from "../sessions/liveness";
import { publishNotice } from "../sessions/notice";
import { readLiveness } from "../sessions/read-session";
import { forceRelease, type Disposal, type ForceReleaseOutcome } from "./force-release";

export interface HolderReleaseRequest {
  readonly key: Buffer;
  /** The value the operator saw; undefined: any value (force: true), or `expectedDigest`. */
  readonly expectedValue?: string;
  /** The digest of the value the operator saw (shown cut or digested): `sha1:<12 hex>`. */
  readonly expectedDigest?: string;
  /** Required when the holder has no session (and the lock is no Redisson hash). */
  readonly noSession?: NoSessionChoice;
  readonly reason: string;
}

export interface HolderRelease {
  readonly outcome: ForceReleaseOutcome;
  readonly mode: ForceReleaseMode;
  /** null with `force: true` (no liveness is read). */
  readonly holderState: HolderSessionState | null;
  /** Why this mode, for the audit line: "holder alive", "no session: release-now"… */
  readonly why: string;
}

export const NO_SESSION_MESSAGE =
  'Invalid request body: noSession: this holder\'s value carries no session id, so the console cannot tell whether it still runs. Say "release-now" (delete it now, accepting that the holder may still act as the owner) or "hold-until-ttl" (keep everyone out until its validity ends; nobody will acknowledge).';

export interface HolderReleaseContext {
  readonly ctx: ConsoleContext;
  /** The audit actor's label, written into the tombstone as `by`. */
  readonly by: string;
  readonly auditId: string;
  /** Liveness already read for a session (a session's release reads it once for all its locks). */
  readonly known?: ReadonlyMap<string, Liveness>;
}

export async function releaseHolder(
  { ctx, by, auditId, known }: HolderReleaseContext,
  request: HolderReleaseRequest,
): Promise<HolderRelease> {
  const { key, expectedValue, expectedDigest, reason } = request;
  let sessionId = expectedValue === undefined ? null : sessionOfValue(expectedValue);
  // The value decided on: the operator's, or by digest the one a matching node holds (cut past
  // READ_VALUE_MAX_BYTES: a session id after huge labels is cut off, so it counts as none).
  let seen = expectedValue;
  let holderState: HolderSessionState | null = null;
  let why = "force: any value";
  const livenessOf = async (id: string) =>
    known?.get(id) ?? (await readLiveness(ctx.registry.nodes, id, ctx.nodeDeadlineMs));
  const tombstone = (value: string): Disposal => ({
    mode: "tombstone",
    tombstone: encodeTombstone(value, {
      auditId,
      by,
      reason,
      at: Date.now(),
      ...(sessionId === null ? {} : { session: sessionId }),
    }),
    ttlMs: ownerOfValue(value)?.ttlMs ?? null,
  });
  const decideFor = async (value: string, redisson: boolean): Promise<Disposal> => {
    holderState = "unknown";
    if (isTombstone(value)) {
      // Forcing a tombstone lifts the reservation: the operator accepts that the holder may not have stopped.
      if (sessionId !== null) holderState = (await livenessOf(sessionId)).state;
      why = `lifts the tombstone of ${decodeTombstone(value)?.auditId ?? "an earlier force-release"} (holder ${holderState})`;
      return { mode: "delete" };
    }
    if (redisson) {
      why = "Redisson hash lock: deleted, never tombstoned";
      return { mode: "delete" };
    }
    if (sessionId !== null) {
      const liveness = await livenessOf(sessionId);
      holderState = liveness.state;
      why = `holder ${liveness.state}`;
      return liveness.state === "gone" ? { mode: "delete" } : tombstone(value);
    }
    if (request.noSession === undefined) throw new ApiError("invalid_request", NO_SESSION_MESSAGE);
    why = `no session: operator chose ${request.noSession}`;
    return request.noSession === "release-now" ? { mode: "delete" } : tombstone(value);
  };
  const outcome = await forceRelease(
    ctx.registry.nodes,
    { key, expectedValue, expectedDigest },
    {
      deadlineMs: ctx.nodeDeadlineMs,
      isHung: ctx.isHung,
      decide: async ({ redisson, holder }) => {
        if (expectedDigest !== undefined && holder !== null) {
          seen = holder;
          sessionId = sessionOfValue(holder);
        }
        const disposal =
          seen === undefined ? ({ mode: "delete" } as const) : await decideFor(seen, redisson);
        // Before the write: the timeline then tells this hold's end as a force-release by this actor.
        ctx.timeline.markForceRelease(key.toString("latin1"), by, reason, seen ?? null, auditId);
        return disposal;
      },
    },
  );
  // The mark now names only what was removed (nothing: no mark), never a later holder's value.
  ctx.timeline.settleForceRelease(key.toString("latin1"), removedValues(outcome, expectedValue));
  // The holder of a lifted tombstone was told when it was laid.
  const lifted = seen !== undefined && isTombstone(seen);
  if (outcome.deletedCount + outcome.tombstonedCount > 0 && !lifted) {
    await notifyHolders(ctx, key, auditId, outcome, sessionId);
  }
  return {
    outcome,
    mode: outcome.tombstonedCount > 0 ? "tombstoned" : "deleted",
    holderState,
    why,
  };
}

/**
 * The values a force-release removed: the expected one wherever a node deleted or replaced it, or
 * was sent the write and has not answered (its queued write may still run: the follow-up audits
 * it); with force: any, what each node that deleted reported holding.
 */
function removedValues(outcome: ForceReleaseOutcome, expectedValue: string | undefined): string[] {
  const removed = outcome.deletedCount + outcome.tombstonedCount > 0;
  if (expectedValue !== undefined)
    return removed || outcome.pendingNodeIds.length > 0 ? [expectedValue] : [];
  return outcome.nodes.flatMap((node) =>
    node.outcome === "deleted" && node.value !== null ? [node.value] : [],
  );
}

/** The notice to every session whose value was replaced or deleted (force: true may meet several). */
async function notifyHolders(
  ctx: ConsoleContext,
  key: Buffer,
  auditId: string,
  outcome: ForceReleaseOutcome,
  sessionId: string | null,
): Promise<void> {
  const sessions =
    sessionId !== null
      ? [sessionId]
      : [
          ...new Set(
            outcome.nodes.flatMap((node) =>
              node.outcome === "deleted" && node.value !== null ? [sessionOfValue(node.value)] : [],
            ),
          ),
        ].filter((session) => session !== null);
  await Promise.all(
    sessions.map((session) =>
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
