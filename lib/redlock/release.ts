import { performance } from "node:perf_hooks";
import type { Core } from "./core";
import { ResourceLockedError } from "./errors";
import { runAttempt, type NodeAnswer } from "./quorum";
import type { Settings } from "./settings";
import type { ReleaseCounts, ReleaseResult } from "./types";
import { wakeNodes } from "./handoff";
import { waitersKey } from "./keys";
import { TOMBSTONE_PREFIX } from "./protocol";
import { defineScript, type Script, type ScriptArg } from "./script";
import type { Client } from "./driver";

/**
 * Lua `wakeNext(waitersKey, nowMs)`: hands a released resource to the longest-waiting contender
 * only. Among the live members of the resource's waiters set (score ≥ now) that carry a wake
 * channel, the earliest `since` (then the smaller id) is told by PUBLISH of its wait id on its
 * Redlock instance's channel; a member nobody listens to any more (PUBLISH reaches 0 subscribers:
 * its process is gone) is dropped and the next one is tried. One EXISTS when nobody waits.
 */
const WAKE_NEXT_LUA = `
local function wakeNext(waitersKey, nowMs)
  if redis.call("exists", waitersKey) == 0 then return end
  local queue = {}
  for _, member in ipairs(redis.call("zrangebyscore", waitersKey, nowMs, "+inf", "LIMIT", 0, 64)) do
    local ok, waiter = pcall(cjson.decode, member)
    if ok and type(waiter) == "table" and type(waiter.wake) == "string"
      and type(waiter.id) == "string" and type(waiter.since) == "number" then
      queue[#queue + 1] = {waiter, member}
    end
  end
  table.sort(queue, function(a, b)
    if a[1].since ~= b[1].since then return a[1].since < b[1].since end
    return a[1].id < b[1].id
  end)
  for _, entry in ipairs(queue) do
    if redis.pcall("publish", entry[1].wake, entry[1].id) == 1 then return end
    redis.call("zrem", waitersKey, entry[2])
  end
end
`;

/**
 * Lua `holds(key, value)`: whether the key holds the value, or the console's tombstone of it
 * (`rlx:<the value's token>:…`, marks.ts): a force-released lock's release is its holder's
 * acknowledgement that it stopped, which frees the resource at once (docs/holder-sessions.md).
 * The tombstone is looked for only when the key does not hold the value itself.
 */
const HOLDS_LUA = `
local function holds(key, value)
  local current = redis.call("get", key)
  if current == value then return true end
  if not current then return false end
  local prefix = "${TOMBSTONE_PREFIX}" .. (string.match(value, "^rl1:(%x+):") or value) .. ":"
  return string.sub(current, 1, #prefix) == prefix
end
`;

/**
 * Deletes each resource (KEYS[1..n], n = ARGV[3]) that still holds the value ARGV[1], or its
 * tombstone (never another holder's). Returns the count deleted. With ARGV[2] = "1", KEYS[n+1..2n] are the resources' waiters
 * sets and each deletion wakes the resource's longest-waiting contender (wakeNext, at ARGV[4] = now).
 */
export const RELEASE = defineScript<
  readonly [value: string, wake: 0 | 1, resourceCount: number, nowMs: number],
  number
>(`${WAKE_NEXT_LUA}${HOLDS_LUA}
local count = 0
local resources = tonumber(ARGV[3])
for i = 1, resources do
  if holds(KEYS[i], ARGV[1]) then
    redis.call("del", KEYS[i])
    if ARGV[2] == "1" then wakeNext(KEYS[resources + i], ARGV[4]) end
    count = count + 1
  end
end
return count
`);

/**
 * RELEASE for one resource, without its loop (a single caller's unlock runs it on every node):
 * KEYS[1] the resource and, with ARGV[2] = "1", KEYS[2] its waiters set; ARGV[3] now.
 */
export const RELEASE_ONE = defineScript<
  readonly [value: string, wake: 0 | 1, nowMs: number],
  0 | 1
>(`${WAKE_NEXT_LUA}${HOLDS_LUA}
if not holds(KEYS[1], ARGV[1]) then return 0 end
redis.call("del", KEYS[1])
if ARGV[2] == "1" then wakeNext(KEYS[2], ARGV[3]) end
return 1
`);

/**
 * A release's wake step on its own, for a resource freed without a release (WAKE_NEXT_WAITER):
 * KEYS[1] the resource, KEYS[2] its waiters set, ARGV[1] now. Wakes only while the resource is
 * free on this node (a holder or tombstone still there: its own release wakes); 1 when it was free.
 */
export const WAKE_NEXT = defineScript<readonly [nowMs: number], 0 | 1>(`${WAKE_NEXT_LUA}
if redis.call("exists", KEYS[1]) == 1 then return 0 end
wakeNext(KEYS[2], ARGV[1])
return 1
`);

/**
 * Hands `resource` to its longest-waiting contender as a release would (the same wakeNext, so one
 * wake protocol), when it was freed without one: the console calls it when a force-release's
 * tombstone ran out unacknowledged (docs/holder-sessions.md, "Tombstone"), so a contender does not
 * sleep until its next retry. One script per node of `clients` (every node: waiters list themselves
 * on the wake nodes only, handoff.ts, and the others answer one EXISTS); nothing published where
 * nobody waits or the resource is held again. Never rejects: a node that fails wakes nobody and
 * its waiters keep their sleeping retry. Resolves to the count of nodes where the resource was free.
 */
export async function wakeNextWaiter(
  clients: readonly Client[],
  resource: string | Buffer,
  nowMs = Date.now(),
): Promise<number> {
  const keys = [resource, waitersKey(resource)];
  const replies = await Promise.all(
    clients.map((client) => WAKE_NEXT.run(client, keys, [nowMs]).catch(() => 0 as const)),
  );
  return replies.filter((reply) => Number(reply) === 1).length;
}

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
 * The release script call: RELEASE_ONE for one resource, else RELEASE. `wakeWaiters`: hand each
 * released resource to its longest-waiting contender (handoff.ts); a failed attempt's clean-up
 * wakes nobody.
 */
export function releaseCommand(
  resources: readonly string[],
  value: string,
  wakeWaiters: boolean,
  /** The one queue of a semaphore or read-write lock (guard.ts), woken instead of the resource's. */
  queueKey?: string,
): { script: Script; keys: readonly string[]; args: ScriptArg[] } {
  const wake = wakeWaiters ? 1 : 0;
  const queues = queueKey === undefined ? resources.map(waitersKey) : [queueKey];
  const keys = wakeWaiters ? [...resources, ...queues] : resources;
  return resources.length === 1
    ? { script: RELEASE_ONE, keys, args: [value, wake, Date.now()] }
    : { script: RELEASE, keys, args: [value, wake, resources.length, Date.now()] };
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
  queueKey?: string,
): Promise<ReleaseResult> {
  const startMono = performance.now();
  // Wake the contenders waiting on these resources from the nodes that list them; the other
  // nodes, and a failed attempt's clean-up, only delete.
  const { script, keys, args } = releaseCommand(resources, value, true, queueKey);
  const attempt = await runAttempt(core.nodes, {
    script,
    keys,
    args,
    otherwise: { nodes: wakeNodes(core.nodes).quiet, ...releaseCommand(resources, value, false) },
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
