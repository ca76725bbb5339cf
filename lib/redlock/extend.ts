import { withRetries, type Core } from "./core";
import { ExecutionError, ResourceLockedError } from "./errors";
import { revokeKey } from "./keys";
import { quorumSize, runAttempt, type Attempt, type NodeAnswer } from "./quorum";
import { validityMs, type Settings } from "./settings";
import type { ExecutionStats } from "./types";
import { defineScript, type Script, type ScriptArg } from "./script";
import { GUARDED_EXTEND, type Guard } from "./guard";

/**
 * Resets the TTL of every resource, only if all still hold the value. Returns the count extended.
 * With ARGV[3] (a session's lock), KEYS[1..ARGV[3]] are the resources and the rest their revoke
 * markers (keys.ts revokeKey, each in its resource's slot): the reply is then {count, 1} when one
 * of them asks for this very value back, so a revoke whose notice was lost is still seen at the
 * next extension. The lock is extended all the same: a revoked holder keeps it until it lets go.
 */
export const EXTEND = defineScript<
  | readonly [value: string, ttlMs: number]
  | readonly [value: string, ttlMs: number, resourceCount: number],
  number | [count: number, revoked: 1]
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
  local marker = redis.call("get", KEYS[i])
  if marker then
    local ok, revoke = pcall(cjson.decode, marker)
    if ok and type(revoke) == "table" and revoke.value == ARGV[1] then return {count, 1} end
  end
end
return count
`);

const judgeExtend =
  (resourceCount: number) =>
  (reply: unknown): NodeAnswer => {
    const count = Number(Array.isArray(reply) ? reply[0] : reply);
    return count === resourceCount
      ? { vote: "for", reply }
      : {
          vote: "against",
          error: new ResourceLockedError(
            `The operation was applied to: ${count} of the ${resourceCount} requested resources.`,
          ),
        };
  };

/**
 * Whether a node said a revoke marker asks for the lock back: then the session reads the markers,
 * and acts only on a majority (notices.ts).
 */
const revokeSeen = (answers: Attempt["answers"]) =>
  answers.some((answer) => answer?.vote === "for" && Array.isArray(answer.reply));

/** EXTEND, with the revoke markers for a session's lock; GUARDED_EXTEND for a guarded lock. */
function extendCommand(
  resources: readonly string[],
  value: string,
  ttlMs: number,
  session: boolean,
  guard: Guard | undefined,
): { script: Script; keys: readonly string[]; args: readonly ScriptArg[] } {
  if (guard) {
    const keys = [guard.key, resources[0]!, ...(session ? [revokeKey(resources[0]!)] : [])];
    return { script: GUARDED_EXTEND, keys, args: [value, ttlMs, guard.expected] };
  }
  return session
    ? {
        script: EXTEND,
        keys: [...resources, ...resources.map(revokeKey)],
        args: [value, ttlMs, resources.length],
      }
    : { script: EXTEND, keys: resources, args: [value, ttlMs] };
}

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
  guard?: Guard,
): Promise<{ expiration: number; revoked: boolean; attempts: Promise<ExecutionStats>[] }> {
  if (target.expiration < Date.now())
    throw new ExecutionError("Cannot extend an already-expired lock.", []);
  // Once this many nodes say the lock is not ours, no majority can extend it: retrying is pointless.
  const majorityGone = core.nodes.length - quorumSize(core.nodes.length) + 1;
  const { resources, value } = target;
  const { script, keys, args } = extendCommand(resources, value, ttlMs, !!core.session, guard);
  const { result, attempts } = await withRetries(
    core,
    { operation: "extend", resources: target.resources },
    settings,
    signal,
    async () => {
      const startWall = Date.now();
      const attempt = await runAttempt(core.nodes, {
        script,
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
        const expiration = startWall + attempt.elapsedMs + validity;
        const revoked = revokeSeen(attempt.answers);
        return { attempt, result: { expiration, revoked } };
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
  return { ...result, attempts };
}
