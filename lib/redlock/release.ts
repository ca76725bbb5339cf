import { performance } from "node:perf_hooks";
import type { Core } from "./core";
import { ResourceLockedError } from "./errors";
import { runAttempt, type NodeAnswer } from "./quorum";
import type { Settings } from "./settings";
import type { ReleaseCounts, ReleaseResult } from "./types";
import { defineScript, type Script, type ScriptArg } from "./script";

/**
 * Deletes each resource that still holds the value (never another holder's). Returns the count
 * deleted. With ARGV[2] = "1", publishes each deletion on `redlock:released:<key>` (handoff.ts).
 */
export const RELEASE = defineScript<readonly [value: string, publish: 0 | 1], number>(`
local count = 0
for _, key in ipairs(KEYS) do
  if redis.call("get", key) == ARGV[1] then
    redis.call("del", key)
    if ARGV[2] == "1" then redis.pcall("publish", "redlock:released:" .. key, "") end
    count = count + 1
  end
end
return count
`);

/**
 * RELEASE for one resource, without its loop (a single caller's unlock runs it on every node):
 * KEYS[1] the resource, ARGV as RELEASE's.
 */
export const RELEASE_ONE = defineScript<readonly [value: string, publish: 0 | 1], 0 | 1>(`
if redis.call("get", KEYS[1]) ~= ARGV[1] then return 0 end
redis.call("del", KEYS[1])
if ARGV[2] == "1" then redis.pcall("publish", "redlock:released:" .. KEYS[1], "") end
return 1
`);

/** What the answers so far say: deleted on how many nodes, failed on how many. */
function countAnswers(answers: ReadonlyArray<NodeAnswer | undefined>): ReleaseCounts {
  let releasedCount = 0;
  let failedCount = 0;
  for (const answer of answers) {
    if (Number(answer?.reply) > 0) releasedCount += 1;
    else if (answer?.vote === "against" && !(answer.error instanceof ResourceLockedError))
      failedCount += 1;
  }
  return { releasedCount, failedCount, alreadyReleased: releasedCount === 0 && failedCount === 0 };
}

/**
 * The release script call: RELEASE_ONE for one resource, else RELEASE. `wakeWaiters`: publish the
 * release so contenders waiting on it retry at once (handoff.ts).
 */
export function releaseCommand(
  resources: readonly string[],
  value: string,
  wakeWaiters: boolean,
): { script: Script; keys: readonly string[]; args: ScriptArg[] } {
  const publish = wakeWaiters ? 1 : 0;
  return {
    script: resources.length === 1 ? RELEASE_ONE : RELEASE,
    keys: resources,
    args: [value, publish],
  };
}

/**
 * Deletes the lock's keys on every node, whether or not we believe each holds them (a node may have
 * granted after its timeout). One attempt, each node bounded by nodeTimeout: deleting is idempotent and
 * an unreachable node's keys expire anyway, so this never retries, never hangs and never throws
 * because the lock had already expired.
 *
 * It resolves as soon as the outcome is known: a majority of nodes has replied (or every node that
 * can reply has), so a hung minority costs nothing. The other deletes are still sent and land
 * whenever their node answers; `settled` and `attempts` report them once every node answered or
 * timed out.
 */
export async function release(
  core: Core,
  resources: string[],
  value: string,
  settings: Settings,
): Promise<ReleaseResult> {
  const startMono = performance.now();
  // Wake the contenders waiting on these resources (a failed attempt's clean-up does not).
  const { script, keys, args } = releaseCommand(resources, value, true);
  const attempt = await runAttempt(core.nodes, {
    script,
    keys,
    args,
    timeoutMs: settings.nodeTimeout,
    judge: (reply) =>
      Number(reply) === resources.length
        ? { vote: "for", reply }
        : {
            vote: "against",
            reply,
            error: new ResourceLockedError(
              `The operation was applied to: ${Number(reply)} of the ${resources.length} requested resources.`,
            ),
          },
    decideEarly: false,
    decideOnMajorityAnswered: true,
    gateRestarts: false,
  });
  const latencyMs = performance.now() - startMono;
  const counts = countAnswers(attempt.answers);
  const settled = attempt.stats.then(() => countAnswers(attempt.answers));
  void attempt.stats.then(core.emitVoteErrors);
  if (core.wantsEvents())
    void attempt.stats.then((stats) =>
      core.emitOperation({
        operation: "release",
        resources,
        outcome: countAnswers(attempt.answers).releasedCount > 0 ? "success" : "failure",
        attempts: 1,
        latencyMs,
        nodes: stats.nodes,
      }),
    );
  return { attempts: [attempt.stats], ...counts, settled };
}
