/**
 * A guarded lock: an ordinary lock on one key (a semaphore's permit, a read-write lock's reader
 * slot or writer key) whose acquire and extend also check and refresh a guard key on the same node,
 * in the same script. The guard records the shape every client must agree on (a semaphore's permit
 * count, a read-write lock's reader slots): a client that expects another shape is refused on
 * every node that holds the guard, and since the guard lives at least as long as any lock it was
 * written with on that node, a majority of holders' nodes always holds it (docs/safety.md).
 * Release is the ordinary release; it wakes the guarded lock's one queue instead of the key's own.
 */
import { ResourceLockedError } from "./errors";
import type { NodeAnswer } from "./quorum";
import { defineScript } from "./script";

export interface Guard {
  /** `redlock:semaphore:{name}` or `redlock:rwlock:{name}`: the recorded shape. */
  readonly key: string;
  /** What the guard must say (the permit count or reader slots, as decimal text). */
  readonly expected: string;
  /** Keys that must not exist for the lock to be granted (a writer's: every reader slot). */
  readonly blockers: readonly string[];
  /** Set (PX `intentTtlMs`) whenever this acquire is refused: a waiting writer blocks new readers. */
  readonly intent?: { readonly key: string; readonly ttlMs: number };
  /** The waiters set all locks of this semaphore or read-write lock wait in, and releases wake. */
  readonly queueKey: string;
}

/**
 * KEYS: guard, the lock's key, ARGV[4] blockers, the intent key when ARGV[5] > 0, fencing counters.
 * ARGV: value, ttlMs, expected guard, blocker count, intent TTL (0: none). Reply {1, fence} when
 * set, {0, fence} when held or blocked, {-1, fence, recorded} when the guard says another shape.
 * The guard's TTL is raised to at least ttlMs with the lock, so it never expires before it.
 */
export const GUARDED_ACQUIRE = defineScript<
  readonly [value: string, ttlMs: number, expected: string, blockers: number, intentTtlMs: number],
  [outcome: number, fence: number, recorded?: string]
>(`
local ttl = tonumber(ARGV[2])
local blockers = tonumber(ARGV[4])
local intentTtl = tonumber(ARGV[5])
local firstFence = 3 + blockers + (intentTtl > 0 and 1 or 0)
local fence = 0
for i = firstFence, #KEYS do
  local current = tonumber(redis.call("get", KEYS[i]) or "0") or 0
  if current > fence then fence = current end
end
local recorded = redis.call("get", KEYS[1])
if recorded and recorded ~= ARGV[3] then return {-1, fence, recorded} end
local refused = redis.call("exists", KEYS[2]) == 1
for i = 3, 2 + blockers do
  if not refused and redis.call("exists", KEYS[i]) == 1 then refused = true end
end
if refused then
  if intentTtl > 0 then redis.call("set", KEYS[3 + blockers], "1", "PX", intentTtl) end
  return {0, fence}
end
redis.call("set", KEYS[2], ARGV[1], "PX", ttl)
if intentTtl > 0 then redis.call("del", KEYS[3 + blockers]) end
if redis.call("pttl", KEYS[1]) < ttl then redis.call("set", KEYS[1], ARGV[3], "PX", ttl) end
return {1, fence}
`);

/**
 * EXTEND for one guarded key: KEYS guard, the lock's key, its revoke marker (a session's lock).
 * ARGV: value, ttlMs, expected guard. Extends only while the key holds the value and the guard is
 * ours or absent; raises the guard's TTL with it. Replies as EXTEND does (1, {1, 1} when revoked).
 */
export const GUARDED_EXTEND = defineScript<
  readonly [value: string, ttlMs: number, expected: string],
  number | [count: number, revoked: 1]
>(`
if redis.call("get", KEYS[2]) ~= ARGV[1] then return 0 end
local recorded = redis.call("get", KEYS[1])
if recorded and recorded ~= ARGV[3] then return 0 end
local ttl = tonumber(ARGV[2])
redis.call("pexpire", KEYS[2], ttl)
if redis.call("pttl", KEYS[1]) < ttl then redis.call("set", KEYS[1], ARGV[3], "PX", ttl) end
if KEYS[3] then
  local marker = redis.call("get", KEYS[3])
  if marker then
    local ok, revoke = pcall(cjson.decode, marker)
    if ok and type(revoke) == "table" and revoke.value == ARGV[1] then return {1, 1} end
  end
end
return 1
`);

/** The guard differs on a node: it records another count than this client's. */
export class GuardMismatchVote extends ResourceLockedError {
  constructor(readonly recorded: string) {
    super(`The node records ${recorded}.`);
  }
}

export const judgeGuardedAcquire = (reply: unknown): NodeAnswer => {
  const [outcome, , recorded] = Array.isArray(reply) ? (reply as unknown[]) : [];
  if (Number(outcome) === 1) return { vote: "for", reply };
  const error =
    Number(outcome) === -1
      ? new GuardMismatchVote(String(recorded))
      : new ResourceLockedError("The operation was applied to: 0 of the 1 requested resources.");
  return { vote: "against", reply, error };
};

/** Guards of the locks this process holds through a semaphore or read-write lock. */
const guards = new WeakMap<object, Guard>();
export const guardOf = (lock: object): Guard | undefined => guards.get(lock);
export const setGuard = (lock: object, guard: Guard | undefined): void => {
  if (guard) guards.set(lock, guard);
};

/** A semaphore permit's index (`{name}#<i>`), for a lock taken through a semaphore; else undefined. */
export function permitOf(lock: { readonly resources: readonly string[] }): number | undefined {
  const guard = guards.get(lock);
  if (!guard?.key.startsWith("redlock:semaphore:")) return undefined;
  const digits = /#(\d+)$/.exec(lock.resources[0] ?? "")?.[1];
  return digits === undefined ? undefined : Number(digits);
}
