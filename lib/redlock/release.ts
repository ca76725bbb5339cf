import { performance } from "node:perf_hooks";
import type { Core } from "./core";
import { ResourceLockedError } from "./errors";
import { ownerKey } from "./lua";
import { ownerLabels } from "./owner";
import { runAttempt } from "./quorum";
import type { Settings } from "./settings";
import type { ReleaseResult } from "./types";

/**
 * The release script's keys and args: with owner metadata on, the owner entries follow the
 * resources and are deleted with them (only where the lock's value was found and deleted).
 */
export function releaseCommand(
  resources: readonly string[],
  value: string,
  settings: Settings,
): { keys: readonly string[]; args: (string | number)[] } {
  if (!ownerLabels(settings)) return { keys: resources, args: [value] };
  return {
    keys: [...resources, ...resources.map(ownerKey)],
    args: [value, resources.length],
  };
}

/**
 * Deletes the lock's keys on every node, whether or not we believe each holds them (a node may have
 * granted after its timeout). One attempt, each node bounded by nodeTimeout: deleting is idempotent and
 * an unreachable node's keys expire anyway, so this never retries, never hangs and never throws
 * because the lock had already expired.
 */
export async function release(
  core: Core,
  resources: string[],
  value: string,
  settings: Settings,
): Promise<ReleaseResult> {
  const startMono = performance.now();
  const attempt = await runAttempt(core.nodes, {
    script: core.scripts.release,
    ...releaseCommand(resources, value, settings),
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
    gateRestarts: false,
  });
  const releasedCount = attempt.answers.filter((answer) => Number(answer?.reply) > 0).length;
  const failedCount = attempt.answers.filter(
    (answer) => answer?.vote === "against" && !(answer.error instanceof ResourceLockedError),
  ).length;
  const outcome = releasedCount > 0 ? "success" : "failure";
  if (core.wantsEvents())
    void attempt.stats.then((stats) =>
      core.emitOperation({
        operation: "release",
        resources,
        outcome,
        attempts: 1,
        latencyMs: performance.now() - startMono,
        nodes: stats.nodes,
      }),
    );
  return {
    attempts: [attempt.stats],
    releasedCount,
    failedCount,
    alreadyReleased: releasedCount === 0 && failedCount === 0,
  };
}
