import { withRetries, type Core } from "./core";
import { ExecutionError, ResourceLockedError } from "./errors";
import { quorumSize, runAttempt, type NodeAnswer } from "./quorum";
import { validityMs, type Settings } from "./settings";
import type { ExecutionStats } from "./types";
import { defineScript } from "./script";

/** Resets the TTL of every resource, only if all still hold the value. Returns the count extended. */
export const EXTEND = defineScript<readonly [value: string, ttlMs: number], number>(`
for _, key in ipairs(KEYS) do
  if redis.call("get", key) ~= ARGV[1] then
    return 0
  end
end
for _, key in ipairs(KEYS) do
  redis.call("pexpire", key, ARGV[2])
end
return #KEYS
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
  const { resources, value } = target;
  const { result, attempts } = await withRetries(
    core,
    { operation: "extend", resources: target.resources },
    settings,
    signal,
    async () => {
      const startWall = Date.now();
      const attempt = await runAttempt(core.nodes, {
        script: EXTEND,
        keys: resources,
        args: [value, ttlMs],
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
