import "server-only";
/**
 * Revoke on the nodes (docs/holder-sessions.md): the revoke marker `revokeKey(resource)` (same
 * slot as the lock), written by one script per node only while the lock still holds the value the
 * operator saw. Like force-release, every node is checked first and nothing is written if any
 * holds another value.
 */
import type { RevokeNodeResult } from "@/lib/api";
import {
  defineScript,
  encodeRevokeMarker,
  revokeKey,
  type RevokeMarker,
} from "@redlock-console/redlock";
import type { ConsoleNode } from "../node-registry";
import { fanOut, type FanOutOptions } from "./fan-out";

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

/** The marker's JSON: the library's encoder (the protocol's; the holder's library adds `releasedAt`). */
export { encodeRevokeMarker };

export interface RevokeNodesOutcome {
  readonly nodes: RevokeNodeResult[];
  readonly markedCount: number;
  /** Some node holds another value: nothing (or, in a race, not everything) was marked. */
  readonly valueChanged: boolean;
  readonly silentNodeIds: ReadonlySet<string>;
}

/** Runs the script on `node` (its deadline, and what no answer means, are fan-out.ts's). */
async function onNode(
  node: ConsoleNode,
  key: Buffer,
  mode: "check" | "mark",
  marker: RevokeMarker,
): Promise<Pick<RevokeNodeResult, "outcome" | "value">> {
  const [outcome, holder] = await REVOKE_SCRIPT.run(
    node.client,
    [key, revokeKey(key)],
    [mode, marker.value, encodeRevokeMarker(marker), Math.max(0, marker.deadlineAt - Date.now())],
  );
  return {
    outcome: OUTCOMES[outcome],
    value: outcome === "absent" || outcome === "not_a_lock" ? null : holder,
  };
}

/** Checks every node, then marks those holding `marker.value`; nothing is marked if one holds another. */
export async function revokeOnNodes(
  nodes: readonly ConsoleNode[],
  key: Buffer,
  marker: RevokeMarker,
  options: FanOutOptions,
): Promise<RevokeNodesOutcome> {
  const nodesFanOut = fanOut(nodes, options);
  const silent = nodesFanOut.silentNodeIds;
  const runAll = async (mode: "check" | "mark"): Promise<RevokeNodeResult[]> => {
    const replies = await nodesFanOut.run(mode === "check" ? "read" : "write", (node) =>
      onNode(node, key, mode, marker),
    );
    return replies.map((reply) => ({
      nodeId: reply.nodeId,
      ...(reply.answered ? reply.value : { outcome: "unreachable" as const, value: null }),
      latencyMs: Math.round(reply.latencyMs * 100) / 100,
    }));
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
