import "server-only";
/**
 * Force-release on one node: a compare-and-delete, atomic because it runs as one script.
 */
import { clusterSlot, defineScript, legacyOwnerKey } from "@redlock-console/redlock";
import { withDeadline, type ConsoleNode } from "../node-registry";

export type Mode = "check" | "expect" | "any";

/** Outcome markers outlive the follow-up's window (force-release-follow-up.ts). */
export const OUTCOME_MARKER_TTL_MS = 15 * 60_000;

/**
 * KEYS[1] the lock key; ARGV[1] mode: "check" (report only), "expect" (delete only if the holder is
 * ARGV[2]), "any" (delete whatever lock is there). A string lock's holder is its value; a Redisson
 * hash lock's holder is its sorted holder fields joined by "," (as the snapshot shows it).
 * Returns { outcome, holder }: outcome "deleted" | "match" | "mismatch" | "absent" | "not_a_lock".
 * KEYS[2]: the library's owner entry for the lock (`redlock:owner:<key>`), deleted with it: it would
 * expire with the lock anyway, but must not outlive a force-release as a stale "holder".
 * KEYS[3] (optional): an outcome marker, set to the outcome for ARGV[3] ms, so that a node which
 * answers too late can still be asked what this very call did (force-release-follow-up.ts).
 */
export const FORCE_RELEASE_SCRIPT = defineScript<
  | readonly [mode: "check", expected: string]
  | readonly [mode: "expect" | "any", expected: string, markerTtlMs: number],
  [outcome: "deleted" | "match" | "mismatch" | "absent" | "not_a_lock", holder: string]
>(`
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
  return {'not_a_lock', kind}
end
local matches = ARGV[1] == 'any' or holder == ARGV[2]
if ARGV[1] == 'check' then
  if holder == ARGV[2] then return {'match', holder} end
  return {'mismatch', holder}
end
if matches then
  redis.call('DEL', KEYS[1], KEYS[2])
  return {'deleted', holder}
end
return {'mismatch', holder}
end
local result = run()
if KEYS[3] then redis.call('SET', KEYS[3], result[1], 'PX', ARGV[3]) end
return result
`);

/** Runs the script on `node`; "unreachable" when it does not answer within `deadlineMs`. */
export async function forceReleaseOnNode(
  node: ConsoleNode,
  key: Buffer,
  mode: Mode,
  expected: string,
  deadlineMs: number,
  markerKey: string,
): Promise<{ outcome: string; holder: string | null; latencyMs: number }> {
  const startMs = performance.now();
  // A 1.x lock's owner entry goes with it (a 2.x lock has none: the owner is in its value). On a
  // cluster the script's keys must share one slot: an entry elsewhere (a name without a hash tag,
  // which 1.x could not lock on a cluster) is left out, the lock key standing in for it.
  const legacyEntry = legacyOwnerKey(key);
  const ownerEntry =
    node.kind === "cluster" && clusterSlot(legacyEntry) !== clusterSlot(key) ? key : legacyEntry;
  // A delete sends the script's body: a paused node runs its queued command when it resumes, after
  // the call has timed out, and must run it then (an EVALSHA could meet NOSCRIPT, and its EVAL
  // retry would come after the follow-up asked what the call did).
  const run =
    mode === "check"
      ? FORCE_RELEASE_SCRIPT.run(node.client, [key, ownerEntry], [mode, expected])
      : FORCE_RELEASE_SCRIPT.run(
          node.client,
          [key, ownerEntry, markerKey],
          [mode, expected, OUTCOME_MARKER_TTL_MS],
          { sendBody: true },
        );
  try {
    const [outcome, holder] = await withDeadline(run, deadlineMs);
    return {
      outcome,
      holder: outcome === "absent" || outcome === "not_a_lock" ? null : holder,
      latencyMs: performance.now() - startMs,
    };
  } catch {
    return { outcome: "unreachable", holder: null, latencyMs: performance.now() - startMs };
  }
}
