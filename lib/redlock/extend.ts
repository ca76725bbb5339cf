import { withRetries, type Core } from "./core";
import { ExecutionError, ResourceLockedError } from "./errors";
import { ownerKey } from "./keys";
import { ownerLabels } from "./owner";
import { quorumSize, runAttempt, type NodeAnswer } from "./quorum";
import { validityMs, type Settings } from "./settings";
import type { ExecutionStats } from "./types";
import { defineScript } from "./script";

/**
 * Resets the TTL of every resource, only if all still hold the value. Returns the count extended.
 * With ARGV[3] (resource count), the KEYS after the resources are their owner entries: each one that
 * belongs to this value gets the new TTL and one more extension (pcall: a foreign key type is skipped).
 */
export const EXTEND = defineScript<
  readonly [value: string, ttlMs: number, resourceCount: number],
  number
>(`
local count = tonumber(ARGV[3]) or #KEYS
for i = 1, count do
  if redis.call("get", KEYS[i]) ~= ARGV[1] then
    return 0
  end
end
for i = 1, count do
  redis.call("pexpire", KEYS[i], ARGV[2])
end
for i = count + 1, #KEYS do
  if redis.pcall("hget", KEYS[i], "value") == ARGV[1] then
    redis.call("pexpire", KEYS[i], ARGV[2])
    redis.call("hincrby", KEYS[i], "extensions", 1)
  end
end
return count
`);

const judgeExtend =
  (resourceCount: number) =>
  (reply: unknown): NodeAnswer =>
    Number(reply) === resourceCount
      ? { vote: "for", reply }
      : {
          vote: "against",
          error: new ResourceLockedError(
            `The operation was applied to: ${Number(reply)} of the ${resourceCount} requested resources.`,
          ),
        };

export interface ExtendTarget {
  readonly resources: string[];
  readonly value: string;
  readonly expiration: number;
}

/**
 * Resets the TTL on every node that still holds the value. Counts only if a majority did so while
 * the new validity is positive; stops retrying once a majority says the lock is gone, or it expired.
 */
export async function extend(
  core: Core,
  target: ExtendTarget,
  ttlMs: number,
  settings: Settings,
  signal?: AbortSignal,
): Promise<{ expiration: number; attempts: Promise<ExecutionStats>[] }> {
  if (target.expiration < Date.now())
    throw new ExecutionError("Cannot extend an already-expired lock.", []);
  // Once this many nodes say the lock is not ours, no majority can extend it: retrying is pointless.
  const majorityGone = core.nodes.length - quorumSize(core.nodes.length) + 1;
  // With owner metadata on, each owner entry that belongs to the value is refreshed with the lock.
  const { resources, value } = target;
  const withOwner = ownerLabels(settings) !== undefined;
  const keys = withOwner ? [...resources, ...resources.map(ownerKey)] : resources;
  const args = withOwner ? [value, ttlMs, resources.length] : [value, ttlMs];
  const { result, attempts } = await withRetries(
    core,
    { operation: "extend", resources: target.resources },
    settings,
    signal,
    async () => {
      const startWall = Date.now();
      const attempt = await runAttempt(core.nodes, {
        script: EXTEND,
        keys,
        args,
        timeoutMs: Math.min(settings.nodeTimeout, ttlMs),
        judge: judgeExtend(target.resources.length),
        decideEarly: true,
        decideOnMajorityAnswered: false,
        gateRestarts: false,
      });
      const validity = validityMs(ttlMs, attempt.elapsedMs, settings.driftFactor);
      if (attempt.won && validity > 0) {
        return { attempt, result: { expiration: startWall + attempt.elapsedMs + validity } };
      }
      // "Not ours" and Redis refusing the command (e.g. WRONGTYPE) are final answers; timeouts are not.
      const goneCount = attempt.answers.filter(
        (answer) =>
          answer?.vote === "against" &&
          (answer.error instanceof ResourceLockedError || answer.error.name === "ReplyError"),
      ).length;
      return { attempt, retryable: goneCount < majorityGone && target.expiration > Date.now() };
    },
  );
  return { expiration: result.expiration, attempts };
}
