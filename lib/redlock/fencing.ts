import type { Core } from "./core";
import { ResourceLockedError } from "./errors";
import { fenceKey } from "./lua";
import { runAttempt, type Attempt } from "./quorum";
import type { Settings } from "./settings";

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
    script: core.scripts.fence,
    keys: [...resources, ...resources.map(fenceKey)],
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
    gateRestarts: false,
  });
  return recorded.won ? token : null;
}
