import "server-only";
/**
 * Force-release on one node: a compare-and-set of the tombstone (docs/holder-sessions.md), or the
 * explicit compare-and-delete, atomic because it runs as one script.
 */
import { clusterSlot, legacyOwnerKey } from "@redlock-console/redlock";
import type { ConsoleNode } from "../node-registry";
import { FORCE_RELEASE_SCRIPT, type NodeOutcome } from "./force-release-lua";

/**
 * What the script is asked to do on one node. `expected`: the value the operator saw,
 * `digest:sha1:<12 hex>` for its digest, or "" for any value (`force: true`).
 */
export type NodeRequest = (
  | { readonly mode: "check" | "delete"; readonly expected: string }
  | {
      readonly mode: "tombstone";
      readonly expected: string;
      /** The tombstone's JSON fields without `session` (the script adds the replaced value's). */
      readonly fields: string;
      /** The console's drift factor: the tombstone lasts PTTL + round(driftFactor × ttl) + 2 ms. */
      readonly driftFactor: number;
      /** The TTL the replaced value was acquired with (its drift's base); null: the PTTL stands in. */
      readonly ttlMs: number | null;
    }
) & {
  /** Act on a value of no lock format too: an admin's explicit `notALock: true`. */
  readonly notALock?: boolean;
};
export type Mode = NodeRequest["mode"];

/** Outcome markers outlive the follow-up's window (force-release-follow-up.ts). */
export const OUTCOME_MARKER_TTL_MS = 15 * 60_000;

/**
 * How long a tombstone over a value without TTL lives: such a value had no validity to run out, and
 * a tombstone must never hold a resource for ever (one session window: the holder acks well before).
 */
export const TOMBSTONE_WITHOUT_TTL_MS = 60_000;

export interface NodeAnswer {
  readonly outcome: NodeOutcome | "unreachable";
  readonly holder: string | null;
  /** The key's TYPE ("string", "hash", "none"…); null when unreachable. */
  readonly type: string | null;
  /** The key's PTTL after the call (see the script); null when absent or unreachable. */
  readonly pttlMs: number | null;
  /** The value found had no lock format (refused, or acted on under `notALock: true`). */
  readonly notALock: boolean;
  readonly latencyMs: number;
}

const argsOf = (request: NodeRequest) => {
  const formats = request.notALock === true ? "any" : "";
  switch (request.mode) {
    case "check":
      return [request.mode, request.expected, formats] as const;
    case "tombstone":
      return [
        request.mode,
        request.expected,
        formats,
        OUTCOME_MARKER_TTL_MS,
        request.fields,
        request.driftFactor,
        request.ttlMs ?? "",
        TOMBSTONE_WITHOUT_TTL_MS,
      ] as const;
    default:
      return [request.mode, request.expected, formats, OUTCOME_MARKER_TTL_MS] as const;
  }
};

/** Runs the script on `node` (its deadline, and what no answer means, are fan-out.ts's). */
export async function forceReleaseOnNode(
  node: ConsoleNode,
  key: Buffer,
  request: NodeRequest,
  markerKey: string,
): Promise<Omit<NodeAnswer, "latencyMs">> {
  // A 1.x lock's owner entry goes with it (a 2.x lock has none: the owner is in its value). On a
  // cluster the script's keys must share one slot: an entry elsewhere (a name without a hash tag,
  // which 1.x could not lock on a cluster) is left out, the lock key standing in for it.
  const legacyEntry = legacyOwnerKey(key);
  const ownerEntry =
    node.kind === "cluster" && clusterSlot(legacyEntry) !== clusterSlot(key) ? key : legacyEntry;
  // A write sends the script's body: a paused node runs its queued command when it resumes, after
  // the call has timed out, and must run it then (an EVALSHA could meet NOSCRIPT, and its EVAL
  // retry would come after the follow-up asked what the call did).
  const [outcome, holder, type, pttlMs, format] = await (request.mode === "check"
    ? FORCE_RELEASE_SCRIPT.run(node.client, [key, ownerEntry], argsOf(request))
    : FORCE_RELEASE_SCRIPT.run(node.client, [key, ownerEntry, markerKey], argsOf(request), {
        sendBody: true,
      }));
  return {
    outcome,
    holder: outcome === "absent" || outcome === "not_a_lock" ? null : holder,
    type: type ?? "none",
    pttlMs: pttlMs ?? null,
    notALock: outcome === "not_a_lock" || format === "not_a_lock",
  };
}
