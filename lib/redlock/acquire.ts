/**
 * Over 300 lines, one job: the acquire path (its two scripts, one attempt on every node, the
 * retry loop with the handoff) and the guarded attempt semaphores and read-write locks take.
 */
import { randomFillSync } from "node:crypto";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { withRetries, type Core, type RetryStep } from "./core";
import { NodeTimeoutError, ResourceLockedError } from "./errors";
import { recordFencingToken } from "./fencing";
import { encodeValue } from "./value";
import { fenceKeys } from "./fencing";
import { ownerLabels, type OwnerLabels } from "./owner";
import { quorumSize, runAttempt, type Attempt, type NodeAnswer } from "./quorum";
import { releaseCommand } from "./release";
import { validityMs, type Settings } from "./settings";
import type { PendingAcquire } from "./holdings";
import type { ExecutionStats, OwnerInfo } from "./types";
import { WaiterEntry } from "./waiters";
import { defineScript, type Script, type ScriptArg } from "./script";
import { GUARDED_ACQUIRE, GuardMismatchVote, judgeGuardedAcquire, type Guard } from "./guard";
import { waitersKey } from "./keys";

/**
 * Sets every resource to the value (ARGV[1]) for ARGV[2] ms, only if none exists; the first ARGV[3]
 * KEYS are the resources, the rest fencing counters. Returns {set count, highest fencing counter};
 * the counter is read even when refused, so a new token outbids every node that answered.
 */
export const ACQUIRE = defineScript<
  readonly [value: string, ttlMs: number, resourceCount: number],
  [setCount: number, fence: number]
>(`
local count = tonumber(ARGV[3])
local fence = 0
for i = count + 1, #KEYS do
  local current = tonumber(redis.call("get", KEYS[i]) or "0") or 0
  if current > fence then fence = current end
end
for i = 1, count do
  if redis.call("exists", KEYS[i]) == 1 then
    return {0, fence}
  end
end
for i = 1, count do
  redis.call("set", KEYS[i], ARGV[1], "PX", ARGV[2])
end
return {count, fence}
`);

/**
 * ACQUIRE for the common case, one resource without fencing: a single SET NX PX. On its own it goes
 * as that plain command (script.ts PlainCommand: no Lua call, one command on the node); in a batch
 * its body runs. test/redlock/single-resource-scripts.test.ts runs the command, the body and
 * ACQUIRE on the same states and compares.
 */
export const ACQUIRE_ONE = defineScript<readonly [value: string, ttlMs: number], 0 | 1>(
  `
if redis.call("set", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then return 1 end
return 0
`,
  {
    name: "set",
    argsOf: ([resource], [value, ttlMs]) => [resource!, value, "NX", "PX", ttlMs],
    replyOf: (reply) => (reply === "OK" ? 1 : 0),
  },
);

export interface AcquiredLock {
  /** The resources locked: those asked for, or the one a guarded acquire chose. */
  readonly resources: string[];
  readonly value: string;
  readonly expiration: number;
  readonly fencingToken?: number;
  /** The owner entry written with the lock (absent with `owner: false`). */
  readonly owner?: OwnerInfo;
  readonly attempts: Promise<ExecutionStats>[];
}

// One getrandom() per 204 values instead of one per value: a system call per lock value shows
// under many callers. Each pooled byte is still used once only.
const POOL = Buffer.alloc(20 * 204);
let poolOffset = POOL.length;

/** 20 random bytes as 40 hex chars: unique per attempt, so a late reply can never be mistaken for ours. */
const randomValue = () => {
  if (poolOffset === POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  poolOffset += 20;
  return POOL.toString("hex", poolOffset - 20, poolOffset);
};

const judgeAcquire =
  (resourceCount: number) =>
  (reply: unknown): NodeAnswer => {
    const applied = Array.isArray(reply) ? Number(reply[0]) : Number(reply);
    if (applied === resourceCount) return { vote: "for", reply };
    return {
      vote: "against",
      reply,
      error: new ResourceLockedError(
        `The operation was applied to: ${applied} of the ${resourceCount} requested resources.`,
      ),
    };
  };

/**
 * A semaphore's permit or a read-write lock's mode (semaphore.ts, read-write-lock.ts): each attempt
 * locks one key, `choose`n among the acquire's resources (a probe of which are free; none: the
 * attempt failed), under the guard. `mismatch` is thrown when the nodes' guard says another shape.
 */
export interface Guarded {
  readonly guard: Guard;
  choose?(): Promise<{ attempt: Attempt; resources: string[] }>;
  mismatch(recorded: string): Error;
}

/** Throws `guarded.mismatch` when so many nodes record another shape that no majority can agree. */
export function assertGuardAgrees(core: Core, attempt: Attempt, guarded: Guarded): void {
  const recorded = attempt.answers.flatMap((answer) =>
    answer?.vote === "against" && answer.error instanceof GuardMismatchVote
      ? [answer.error.recorded]
      : [],
  );
  if (recorded.length > core.nodes.length - quorumSize(core.nodes.length))
    throw guarded.mismatch(recorded[0]!);
}

/** Slots one attempt tries after a probe, when a contender took the first ones in between. */
const SLOTS_PER_ATTEMPT = 3;

/**
 * One attempt of a guarded acquire: probe (`choose`) which keys are free, then lock one under the
 * guard; when a contender that probed at the same moment took it first, the next free one, up
 * to SLOTS_PER_ATTEMPT.
 */
async function guardedOnce(
  core: Core,
  resources: string[],
  ttlMs: number,
  settings: Settings,
  guarded: Guarded,
): Promise<RetryStep<Omit<AcquiredLock, "attempts">>> {
  let targets = resources.slice(0, 1);
  if (guarded.choose) {
    const probe = await guarded.choose();
    if (probe.resources.length === 0) return { attempt: probe.attempt };
    targets = probe.resources.slice(0, SLOTS_PER_ATTEMPT);
  }
  let step: RetryStep<Omit<AcquiredLock, "attempts">> | undefined;
  for (const target of targets) {
    step = await acquireOnce(core, [target], ttlMs, settings, guarded.guard);
    if (step.result) return step;
    assertGuardAgrees(core, step.attempt, guarded);
  }
  return step!;
}

/** Acquires every resource on a majority, retrying as settings say. Throws ExecutionError on failure. */
export async function acquire(
  core: Core,
  resources: string[],
  ttlMs: number,
  settings: Settings,
  signal?: AbortSignal,
  guarded?: Guarded,
): Promise<AcquiredLock> {
  // Built at the first failed attempt only: an uncontended acquire pays nothing for waiters.
  let waiter: WaiterEntry | undefined;
  // Likewise: a revoke of these resources cancels the session's acquires that wait for them.
  let pending: PendingAcquire | undefined;
  const waits = settings.waiters && settings.retryCount !== 0;
  const sinceMs = Date.now();
  try {
    const { result, attempts } = await withRetries(
      core,
      { operation: "acquire", resources },
      settings,
      signal,
      async () => {
        pending?.signal.throwIfAborted();
        const step = guarded
          ? await guardedOnce(core, resources, ttlMs, settings, guarded)
          : await acquireOnce(core, resources, ttlMs, settings);
        if (!step.result) pending ??= core.session?.waiting(resources);
        if (!step.result && waits) {
          waiter ??= new WaiterEntry(
            core,
            resources,
            ttlMs,
            settings,
            ownerLabels(settings),
            sinceMs,
            guarded ? [guarded.guard.queueKey] : resources.map(waitersKey),
          );
          waiter.attemptFailed();
        }
        return step;
      },
      (delayMs, pauseSignal) => pauseBeforeRetry(delayMs, pauseSignal, waiter, pending?.signal),
    );
    return { ...result, attempts };
  } finally {
    waiter?.leave();
    pending?.leave();
  }
}

/** The Lock's owner entry: what its value says. */
const ownerInfo = (
  { labels }: OwnerLabels,
  acquiredAt: number,
  ttlMs: number,
  session: string | undefined,
): OwnerInfo =>
  session === undefined
    ? { labels, acquiredAt, ttlMs, extensions: 0 }
    : { labels, acquiredAt, ttlMs, extensions: 0, session };

/**
 * The wait before the next attempt: a listed wait retries the moment a release hands it the
 * resource, or after the delay. The caller's `signal` or a revoke (`cancel`, whose error is then
 * thrown) cuts it short. True when a handoff cut it short (withRetries then spends no retry on a
 * failed attempt before the retry was due).
 */
async function pauseBeforeRetry(
  delayMs: number,
  signal: AbortSignal | undefined,
  waiter: WaiterEntry | undefined,
  cancel: AbortSignal | undefined,
): Promise<boolean> {
  const either = cancel && signal ? AbortSignal.any([signal, cancel]) : (cancel ?? signal);
  try {
    if (waiter) return await waiter.pause(delayMs, either);
    await sleep(delayMs, undefined, { signal: either });
    return false;
  } catch (error) {
    cancel?.throwIfAborted();
    throw error;
  }
}

/** The script call of one attempt: ACQUIRE_ONE for one resource without fencing, else ACQUIRE. */
function acquireCommand(
  core: Core,
  resources: readonly string[],
  value: string,
  ttlMs: number,
  fencing: boolean,
  guard?: Guard,
): { script: Script; keys: readonly string[]; args: ScriptArg[] } {
  if (guard) {
    const { key, expected, blockers, intent } = guard;
    const keys = [key, resources[0]!, ...blockers, ...(intent ? [intent.key] : [])];
    if (fencing) keys.push(...fenceKeys(core, resources));
    const args = [value, ttlMs, expected, blockers.length, intent?.ttlMs ?? 0];
    return { script: GUARDED_ACQUIRE, keys, args };
  }
  if (resources.length === 1 && !fencing)
    return { script: ACQUIRE_ONE, keys: resources, args: [value, ttlMs] };
  const keys = fencing ? [...resources, ...fenceKeys(core, resources)] : resources;
  return { script: ACQUIRE, keys, args: [value, ttlMs, resources.length] };
}

async function acquireOnce(
  core: Core,
  resources: string[],
  ttlMs: number,
  settings: Settings,
  guard?: Guard,
): Promise<RetryStep<Omit<AcquiredLock, "attempts">>> {
  const startMono = performance.now();
  const startWall = Date.now();
  const owner = ownerLabels(settings);
  const value = encodeValue(randomValue(), owner?.json, startWall, ttlMs, core.session?.id);
  const { script, keys, args } = acquireCommand(
    core,
    resources,
    value,
    ttlMs,
    settings.fencing,
    guard,
  );
  const attempt = await runAttempt(core.nodes, {
    script,
    keys,
    args,
    timeoutMs: Math.min(settings.nodeTimeout, ttlMs),
    judge: guard ? judgeGuardedAcquire : judgeAcquire(resources.length),
    decideEarly: true,
    decideOnMajorityAnswered: false,
    gateRestarts: true,
  });
  const remainingMs = () => validityMs(ttlMs, performance.now() - startMono, settings.driftFactor);
  if (attempt.won && remainingMs() > 0) {
    // The token must outbid every node still keeping the last one, not only the first majority to
    // answer: those may all have missed it (paused) or lost it (restarted empty). Bounded by nodeTimeout.
    if (settings.fencing) await attempt.stats;
    const fencingToken = settings.fencing
      ? await recordFencingToken(core, resources, value, attempt, remainingMs(), settings)
      : undefined;
    const validity = remainingMs();
    if (fencingToken !== null && validity > 0) {
      // Wall-clock start plus monotonic validity: a clock jump during the call cannot lengthen the lock.
      return {
        attempt,
        result: {
          resources,
          value,
          expiration: startWall + (performance.now() - startMono) + validity,
          fencingToken,
          owner: owner && ownerInfo(owner, startWall, ttlMs, core.session?.id),
        },
      };
    }
  }
  await releaseAttempt(core, resources, value, attempt, settings);
  return { attempt };
}

/**
 * Releases a failed attempt's keys on every node at once. Each release is chained after that node's
 * acquire, so it can never overtake it. Nodes that answered are awaited (bounded by nodeTimeout), so a
 * retry does not trip over our own keys; a stalled node is cleaned up whenever it answers.
 */
async function releaseAttempt(
  core: Core,
  resources: string[],
  value: string,
  attempt: Attempt,
  settings: Settings,
): Promise<void> {
  const { script, keys, args } = releaseCommand(resources, value, false);
  // A node that refused because the resource was held set nothing (the script is all-or-nothing).
  const refused = (index: number) => {
    const answer = attempt.answers[index];
    return answer?.vote === "against" && answer.error instanceof ResourceLockedError;
  };
  const awaited: Promise<unknown>[] = [];
  attempt.sent.forEach((sent, index) => {
    if (!sent || refused(index)) return;
    const node = core.nodes[index]!;
    // Asked again once the node answered: an attempt lost early is decided before the last
    // nodes answer, and those mostly refuse too, so a release sent to them at once would be
    // needless.
    const releaseOnNode = () => (refused(index) ? undefined : node.evaluate(script, keys, args));
    const release = sent.then(releaseOnNode, releaseOnNode).catch(() => undefined);
    const answer = attempt.answers[index];
    const stalled = answer?.vote === "against" && answer.error instanceof NodeTimeoutError;
    if (!stalled)
      awaited.push(Promise.race([release, sleep(settings.nodeTimeout, undefined, { ref: false })]));
  });
  await Promise.all(awaited);
}
