import "server-only";
/**
 * Force-release on one node: a compare-and-delete, or a compare-and-set of the tombstone
 * (docs/holder-sessions.md), atomic because it runs as one script.
 */
import { clusterSlot, defineScript, legacyOwnerKey } from "@redlock-console/redlock";
import { READ_VALUE_MAX_BYTES } from "../locks/read/read-key";
import { withDeadline, type ConsoleNode } from "../node-registry";

/** What the script is asked to do on one node. */
export type NodeRequest =
  | { readonly mode: "check"; readonly expected: string }
  | { readonly mode: "expect" | "any"; readonly expected: string }
  | {
      readonly mode: "tombstone";
      readonly expected: string;
      readonly tombstone: string;
      /** The TTL the replaced value was acquired with (its drift's base); null: unknown, PTTL stands in. */
      readonly ttlMs: number | null;
    };
export type Mode = NodeRequest["mode"];

/** Outcome markers outlive the follow-up's window (force-release-follow-up.ts). */
export const OUTCOME_MARKER_TTL_MS = 15 * 60_000;

/**
 * How long a tombstone over a value without TTL lives: such a value had no validity to run out, and
 * a tombstone must never hold a resource for ever (one session window: the holder acks well before).
 */
export const TOMBSTONE_WITHOUT_TTL_MS = 60_000;

export type NodeOutcome = "deleted" | "replaced" | "match" | "mismatch" | "absent" | "not_a_lock";

/**
 * KEYS[1] the lock key; ARGV[1] mode: "check" (report only), "expect" (delete only if the holder is
 * ARGV[2]; `digest:sha1:<12 hex>`: if the SHA-1 of the holder starts so), "any" (delete whatever lock is there), "tombstone" (only if the holder is ARGV[2]:
 * replace a string lock by the tombstone ARGV[4] for its PTTL plus drift, drift = ceil(0.01 × ttl)
 * + 2 with ttl = ARGV[5] or else the PTTL, ARGV[6] ms for a value without TTL; a Redisson hash is
 * deleted, never tombstoned, as its commands would meet WRONGTYPE). A string lock's holder is its
 * value; a Redisson hash lock's holder is its sorted holder fields joined by "," (as the snapshot
 * shows it). Returns { outcome, holder, type }: outcome "deleted" | "replaced" | "match" |
 * "mismatch" | "absent" | "not_a_lock", type the key's TYPE (left out when absent).
 * KEYS[2]: the library's owner entry for the lock (`redlock:owner:<key>`), deleted with it: it would
 * expire with the lock anyway, but must not outlive a force-release as a stale "holder" (a
 * tombstone leaves it: it names the replaced value, so no read shows it for the tombstone).
 * KEYS[3] (optional): an outcome marker, set to the outcome for ARGV[3] ms, so that a node which
 * answers too late can still be asked what this very call did (force-release-follow-up.ts).
 */
export const FORCE_RELEASE_SCRIPT = defineScript<
  | readonly [mode: "check", expected: string]
  | readonly [mode: "expect" | "any", expected: string, markerTtlMs: number]
  | readonly [
      mode: "tombstone",
      expected: string,
      markerTtlMs: number,
      tombstone: string,
      ttlMs: number | "",
      withoutTtlMs: number,
    ],
  [outcome: NodeOutcome, holder: string, type?: string]
>(`
local function holds(holder)
  -- 'digest:sha1:<12 hex>' compares the SHA-1 of the whole value (the operator saw it cut or digested).
  if string.sub(ARGV[2], 1, 7) == 'digest:' then
    return 'sha1:' .. string.sub(redis.sha1hex(holder), 1, 12) == string.sub(ARGV[2], 8)
  end
  return holder == ARGV[2]
end
local function run()
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then return {'absent', ''} end
local holder
if kind == 'string' then
  holder = redis.call('GET', KEYS[1])
elseif kind == 'hash' then
  local fields = {}
  for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
    if field ~= 'mode' then table.insert(fields, field) end
  end
  table.sort(fields)
  holder = table.concat(fields, ',')
else
  return {'not_a_lock', kind, kind}
end
if ARGV[1] == 'check' then
  if holds(holder) then return {'match', holder, kind} end
  return {'mismatch', holder, kind}
end
if ARGV[1] ~= 'any' and not holds(holder) then return {'mismatch', holder, kind} end
if ARGV[1] == 'tombstone' and kind == 'string' then
  local pttl = redis.call('PTTL', KEYS[1])
  local px = tonumber(ARGV[6])
  if pttl > 0 then px = pttl + math.ceil(0.01 * (tonumber(ARGV[5]) or pttl)) + 2 end
  redis.call('SET', KEYS[1], ARGV[4], 'PX', px)
  return {'replaced', holder, kind}
end
redis.call('DEL', KEYS[1], KEYS[2])
return {'deleted', holder, kind}
end
local result = run()
if KEYS[3] then redis.call('SET', KEYS[3], result[1], 'PX', ARGV[3]) end
-- The holder found is reported cut, as reads cut it: a multi-MB value never travels back whole.
result[2] = string.sub(result[2], 1, ${READ_VALUE_MAX_BYTES})
return result
`);

export interface NodeAnswer {
  readonly outcome: NodeOutcome | "unreachable";
  readonly holder: string | null;
  /** The key's TYPE ("string", "hash", "none"…); null when unreachable. */
  readonly type: string | null;
  readonly latencyMs: number;
}

const argsOf = (request: NodeRequest) => {
  switch (request.mode) {
    case "check":
      return [request.mode, request.expected] as const;
    case "tombstone":
      return [
        request.mode,
        request.expected,
        OUTCOME_MARKER_TTL_MS,
        request.tombstone,
        request.ttlMs ?? "",
        TOMBSTONE_WITHOUT_TTL_MS,
      ] as const;
    default:
      return [request.mode, request.expected, OUTCOME_MARKER_TTL_MS] as const;
  }
};

/** Runs the script on `node`; "unreachable" when it does not answer within `deadlineMs`. */
export async function forceReleaseOnNode(
  node: ConsoleNode,
  key: Buffer,
  request: NodeRequest,
  deadlineMs: number,
  markerKey: string,
): Promise<NodeAnswer> {
  const startMs = performance.now();
  // A 1.x lock's owner entry goes with it (a 2.x lock has none: the owner is in its value). On a
  // cluster the script's keys must share one slot: an entry elsewhere (a name without a hash tag,
  // which 1.x could not lock on a cluster) is left out, the lock key standing in for it.
  const legacyEntry = legacyOwnerKey(key);
  const ownerEntry =
    node.kind === "cluster" && clusterSlot(legacyEntry) !== clusterSlot(key) ? key : legacyEntry;
  // A write sends the script's body: a paused node runs its queued command when it resumes, after
  // the call has timed out, and must run it then (an EVALSHA could meet NOSCRIPT, and its EVAL
  // retry would come after the follow-up asked what the call did).
  const run =
    request.mode === "check"
      ? FORCE_RELEASE_SCRIPT.run(node.client, [key, ownerEntry], argsOf(request))
      : FORCE_RELEASE_SCRIPT.run(node.client, [key, ownerEntry, markerKey], argsOf(request), {
          sendBody: true,
        });
  try {
    const [outcome, holder, type] = await withDeadline(run, deadlineMs);
    return {
      outcome,
      holder: outcome === "absent" || outcome === "not_a_lock" ? null : holder,
      type: type ?? "none",
      latencyMs: performance.now() - startMs,
    };
  } catch {
    return {
      outcome: "unreachable",
      holder: null,
      type: null,
      latencyMs: performance.now() - startMs,
    };
  }
}
