import "server-only";
/**
 * Revoke on the nodes (docs/holder-sessions.md): the revoke marker `revokeKey(resource)` (same
 * slot as the lock), written by one script per node only while the lock still holds the value the
 * operator saw. Like force-release, every node is checked first and nothing is written if any
 * holds another value.
 */
import type { RevokeNodeResult } from "@/lib/api";
import { defineScript, revokeKey, type RevokeMarker } from "@redlock-console/redlock";
import { withDeadline, type ConsoleNode } from "../node-registry";

type RevokeOutcome = "marked" | "match" | "mismatch" | "absent" | "not_a_lock";

/**
 * KEYS[1] the lock, KEYS[2] its revoke marker; ARGV[1] "check" or "mark", ARGV[2] the expected
 * value, ARGV[3] the marker's JSON, ARGV[4] ms until the deadline. Marks only a string lock holding
 * ARGV[2], for max(deadline, the lock's PTTL) + 1 s (the holder still finds it when it releases).
 * Returns { outcome, holder }: "marked" | "match" | "mismatch" | "absent" | "not_a_lock".
 */
export const REVOKE_SCRIPT = defineScript<
  readonly [mode: "check" | "mark", expected: string, marker: string, deadlineInMs: number],
  [outcome: RevokeOutcome, holder: string]
>(`
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then return {'absent', ''} end
if kind ~= 'string' then return {'not_a_lock', kind} end
local holder = redis.call('GET', KEYS[1])
if holder ~= ARGV[2] then return {'mismatch', holder} end
if ARGV[1] == 'check' then return {'match', holder} end
local px = tonumber(ARGV[4])
local pttl = redis.call('PTTL', KEYS[1])
if pttl > px then px = pttl end
redis.call('SET', KEYS[2], ARGV[3], 'PX', px + 1000)
return {'marked', holder}
`);

const OUTCOMES: Record<RevokeOutcome | "unreachable", RevokeNodeResult["outcome"]> = {
  marked: "marked",
  match: "kept",
  mismatch: "mismatch",
  not_a_lock: "mismatch",
  absent: "absent",
  unreachable: "unreachable",
};

/** The marker's JSON, in the contract's field order (the library decodes it, and adds `releasedAt`). */
export const encodeRevokeMarker = (marker: RevokeMarker): string =>
  JSON.stringify({
    auditId: marker.auditId,
    by: marker.by,
    reason: marker.reason,
    at: marker.at,
    deadlineAt: marker.deadlineAt,
    value: marker.value,
  });

export interface RevokeNodesOutcome {
  readonly nodes: RevokeNodeResult[];
  readonly markedCount: number;
  /** Some node holds another value: nothing (or, in a race, not everything) was marked. */
  readonly valueChanged: boolean;
  readonly silentNodeIds: ReadonlySet<string>;
}

async function onNode(
  node: ConsoleNode,
  key: Buffer,
  mode: "check" | "mark",
  marker: RevokeMarker,
  deadlineMs: number,
): Promise<RevokeNodeResult> {
  const startMs = performance.now();
  const latencyMs = () => Math.round((performance.now() - startMs) * 100) / 100;
  try {
    const [outcome, holder] = await withDeadline(
      REVOKE_SCRIPT.run(
        node.client,
        [key, revokeKey(key)],
        [
          mode,
          marker.value,
          encodeRevokeMarker(marker),
          Math.max(0, marker.deadlineAt - Date.now()),
        ],
      ),
      deadlineMs,
    );
    return {
      nodeId: node.id,
      outcome: OUTCOMES[outcome],
      value: outcome === "absent" || outcome === "not_a_lock" ? null : holder,
      latencyMs: latencyMs(),
    };
  } catch {
    return { nodeId: node.id, outcome: "unreachable", value: null, latencyMs: latencyMs() };
  }
}

/** Checks every node, then marks those holding `marker.value`; nothing is marked if one holds another. */
export async function revokeOnNodes(
  nodes: readonly ConsoleNode[],
  key: Buffer,
  marker: RevokeMarker,
  options: { readonly deadlineMs: number; readonly isHung: (node: ConsoleNode) => boolean },
): Promise<RevokeNodesOutcome> {
  const silent = new Set(nodes.filter(options.isHung).map((node) => node.id));
  const runAll = async (mode: "check" | "mark") => {
    const results = await Promise.all(
      nodes.map((node) =>
        silent.has(node.id)
          ? { nodeId: node.id, outcome: "unreachable" as const, value: null, latencyMs: 0 }
          : onNode(node, key, mode, marker, options.deadlineMs),
      ),
    );
    for (const result of results) if (result.outcome === "unreachable") silent.add(result.nodeId);
    return results;
  };
  const checks = await runAll("check");
  const changed = (results: RevokeNodeResult[]) =>
    results.some((result) => result.outcome === "mismatch");
  if (changed(checks))
    return { nodes: checks, markedCount: 0, valueChanged: true, silentNodeIds: silent };
  const marks = await runAll("mark");
  return {
    nodes: marks,
    markedCount: marks.filter((result) => result.outcome === "marked").length,
    valueChanged: changed(marks),
    silentNodeIds: silent,
  };
}
