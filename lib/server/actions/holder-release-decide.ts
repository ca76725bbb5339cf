import "server-only";
/**
 * The decide step of a holder's force-release (holder-release.ts): what the check found, the
 * holder's liveness read fresh, and the operator's choice, given to lib/api/unlock-rule.ts; its
 * decision turned into what the script writes.
 */
import {
  unlockRule,
  type ForceReleaseDisposal,
  type HolderSessionState,
  type NoSessionChoice,
  type UnlockCase,
  type UnlockFormat,
} from "@/lib/api";
import { decodeValue } from "@redlock-console/redlock";
import type { ActionDeps } from "./deps";
import { ApiError } from "../errors";
import { ownerOfValue, sessionOfValue } from "../locks/read/ownership";
import { encodeTombstone, isTombstone } from "../locks/read/tombstone";
import type { Liveness } from "../sessions/liveness";
import { readLiveness } from "../sessions/read-session";
import type { CheckedNodes, Disposal } from "./force-release";

export interface HolderReleaseRequest {
  readonly key: Buffer;
  /** The value the operator saw; undefined: any value (force: true), or `expectedDigest`. */
  readonly expectedValue?: string;
  /** The digest of the value the operator saw (shown cut or digested): `sha1:<12 hex>`. */
  readonly expectedDigest?: string;
  /** Required when the holder has no session (and the lock is no Redisson hash). */
  readonly noSession?: NoSessionChoice;
  /** @default "tombstone"; "delete-now" is the operator's explicit immediate delete. */
  readonly disposal?: ForceReleaseDisposal;
  /** Act on a value of no lock format too (an admin's explicit `notALock: true`). */
  readonly notALock?: boolean;
  readonly reason: string;
  /**
   * Called with the value the check found on the nodes (null: none, or no check with `force:
   * true`) before anything is written; throws to refuse (the policy's scope by owner service).
   */
  readonly authorize?: (holderValue: string | null) => void;
}

/** What releasing one lock uses: its nodes, the timeline's mark, the drift factor. */
export type HolderReleaseDeps = Pick<
  ActionDeps,
  "registry" | "nodeDeadlineMs" | "isHung" | "timeline" | "redlock"
>;

export interface HolderReleaseContext {
  readonly ctx: HolderReleaseDeps;
  /** The audit actor's label, written into the tombstone as `by`. */
  readonly by: string;
  readonly auditId: string;
  /** Liveness already read for a session (a session's release reads it once for all its locks). */
  readonly known?: ReadonlyMap<string, Liveness>;
}

const NO_SESSION_MESSAGE =
  'Invalid request body: noSession: this holder\'s value carries no session id, so the console cannot tell whether it still runs. Say "hold-until-ttl" (a tombstone keeps everyone out until its validity ends; nobody will acknowledge) or "release-now" (the explicit delete-now: the holder may still act as the owner).';

/** The value's format as the rule tells it apart. */
function formatOf(value: string, redisson: boolean): UnlockFormat {
  if (redisson) return "redisson-hash";
  if (isTombstone(value)) return "tombstone";
  return decodeValue(value) ? "this-library" : "other-library";
}

/** The tombstone's JSON fields as the encoder writes them; the script puts each node's token before. */
function tombstoneFields(fields: Parameters<typeof encodeTombstone>[1]): string {
  const encoded = encodeTombstone("", fields);
  return encoded.slice(encoded.indexOf(":", encoded.indexOf(":") + 1) + 1);
}

/** What deciding learns on the way, for the answer and the timeline. */
export interface Decided {
  /** The value decided on: the operator's, or by digest the one a matching node holds. */
  seen: string | null;
  sessionId: string | null;
  holderState: HolderSessionState | null;
  unlockCase: UnlockCase | null;
  quorumUnavailable: boolean;
  /** The timeline was told before the write (markForceRelease). */
  marked: boolean;
}

/**
 * The decide step of `forceRelease`: too few nodes to reach the holder's majority → nothing;
 * else the rule (lib/api/unlock-rule.ts) on the fresh liveness → refuse, nothing, delete-now or
 * the tombstone's fields for the script.
 */
export async function decideRelease(
  { ctx, by, auditId, known }: HolderReleaseContext,
  request: HolderReleaseRequest,
  decided: Decided,
  found: CheckedNodes,
): Promise<Disposal> {
  const { quorumSize } = ctx.registry;
  if (request.expectedDigest !== undefined && found.holder !== null) {
    // Cut past READ_VALUE_MAX_BYTES: a session id after huge labels is cut off, so it counts as none.
    decided.seen = found.holder;
    decided.sessionId = sessionOfValue(found.holder);
  }
  const { seen, sessionId } = decided;
  const matched = found.matchedPttlsMs.length;
  const compared = request.expectedValue !== undefined || request.expectedDigest !== undefined;
  if (compared && matched < quorumSize) {
    // Too few answered to reach the holder's majority: writing a minority would tell nobody.
    decided.quorumUnavailable = matched + found.unreachableCount >= quorumSize;
    if (matched === 0 || decided.quorumUnavailable) return { mode: "none", reserved: false };
  }
  if (seen !== null)
    decided.holderState =
      sessionId === null
        ? "unknown"
        : (
            known?.get(sessionId) ??
            (await readLiveness(ctx.registry.nodes, sessionId, ctx.nodeDeadlineMs))
          ).state;
  decided.unlockCase = {
    format: seen === null ? null : formatOf(seen, found.redisson),
    liveness: decided.holderState,
    choice: request.disposal ?? "tombstone",
    noSession: request.noSession ?? null,
    reservedForMs: null,
    nowMs: Date.now(),
  };
  const decision = unlockRule(decided.unlockCase);
  if (decision.refusal === "no_session_choice")
    throw new ApiError("invalid_request", NO_SESSION_MESSAGE);
  if (decision.refusal !== null) throw new ApiError(decision.refusal, decision.words);
  if (decision.disposal === "none") return { mode: "none", reserved: true };
  // Before the write: the timeline then tells this hold's end as a force-release by this actor.
  await ctx.timeline.markForceRelease(
    request.key.toString("latin1"),
    by,
    request.reason,
    seen,
    auditId,
  );
  decided.marked = true;
  if (decision.disposal === "delete-now") return { mode: "delete" };
  return {
    mode: "tombstone",
    fields: tombstoneFields({ auditId, by, reason: request.reason, at: Date.now() }),
    driftFactor: ctx.redlock.settings.driftFactor,
    ttlMs: seen === null ? null : (ownerOfValue(seen)?.ttlMs ?? null),
  };
}
