import type { Core } from "./core";
import { ResourceLockedError } from "./errors";
import { fenceKey, legacyFenceKey } from "./keys";
import { runAttempt, type Attempt } from "./quorum";
import type { Settings } from "./settings";
import { defineScript } from "./script";

/**
 * Records a fencing token: only if every resource still holds the value, raises each resource's
 * counter to the token (never lowers it). Returns 1 when recorded, 0 when the lock was lost here.
 */
export const FENCE = defineScript<
  readonly [value: string, token: number, resourceCount: number],
  0 | 1
>(`
local count = tonumber(ARGV[3])
for i = 1, count do
  if redis.call("get", KEYS[i]) ~= ARGV[1] then
    return 0
  end
end
local token = tonumber(ARGV[2])
for i = count + 1, #KEYS do
  local current = tonumber(redis.call("get", KEYS[i]) or "0") or 0
  if current < token then redis.call("set", KEYS[i], ARGV[2]) end
end
return 1
`);

/**
 * The fencing counters of the resources: each one's counter in its own cluster slot, then, where
 * 1.x named it differently and no node is a Redis Cluster, 1.x's counter too. Reading both and
 * raising both keeps tokens increasing while 1.x and 2.x processes lock the same resources during
 * an upgrade (on a cluster, 1.x could only fence hash-tagged names, whose counters kept their name).
 */
export function fenceKeys(core: Core, resources: readonly string[]): string[] {
  const keys = resources.map(fenceKey);
  if (core.nodes.some((node) => node.isCluster)) return keys;
  for (const resource of resources) {
    const legacy = legacyFenceKey(resource);
    if (legacy !== fenceKey(resource)) keys.push(legacy);
  }
  return keys;
}

/**
 * Picks a token above every counter the nodes reported and records it on a majority that still
 * holds the lock; returns null when it could not, so the lock is never handed out without one.
 */
export async function recordFencingToken(
  core: Core,
  resources: string[],
  value: string,
  acquired: Attempt,
  budgetMs: number,
  settings: Settings,
): Promise<number | null> {
  // Refusing nodes report their counters too: every answer bounds the new token from below.
  const counters = acquired.answers.map((answer) =>
    Array.isArray(answer?.reply) ? Number(answer.reply[1]) || 0 : 0,
  );
  const token = Math.max(0, ...counters) + 1;
  const recorded = await runAttempt(core.nodes, {
    script: FENCE,
    keys: [...resources, ...fenceKeys(core, resources)],
    args: [value, token, resources.length],
    timeoutMs: Math.min(settings.nodeTimeout, budgetMs),
    judge: (reply) =>
      Number(reply) === 1
        ? { vote: "for", reply }
        : {
            vote: "against",
            error: new ResourceLockedError(
              "The lock was lost before its fencing token was recorded.",
            ),
          },
    decideEarly: true,
    decideOnMajorityAnswered: false,
    gateRestarts: false,
  });
  return recorded.won ? token : null;
}
