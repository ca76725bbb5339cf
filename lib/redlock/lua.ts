/**
 * One script per operation and node, so a multi-resource lock is all-or-nothing on each node.
 * KEYS are the resources; ARGV[1] is the lock value. Fencing counters live at `redlock:fence:<resource>`
 * and are passed as KEYS too (after the resources), so scripts declare every key they touch.
 */

/**
 * Sets every resource to the value with a TTL, only if none exists. Returns {set count, highest
 * fencing counter}; the counter is read even when refused, so a new token outbids every node that answered.
 * With ARGV[4] (owner labels JSON) and ARGV[5] (acquiredAt), the last `count` KEYS are the owner
 * entries: written in this same script with the same TTL, so an owner never exists without its lock.
 */
export const ACQUIRE_SCRIPT = `
local count = tonumber(ARGV[3])
local ownerFrom = #KEYS + 1
if ARGV[4] then ownerFrom = #KEYS - count + 1 end
local fence = 0
for i = count + 1, ownerFrom - 1 do
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
-- Every field is written, so a stale entry needs no DEL first; pcall: a foreign key type under the
-- reserved prefix costs the owner entry, never the lock.
for i = ownerFrom, #KEYS do
  redis.pcall("hset", KEYS[i], "value", ARGV[1], "labels", ARGV[4], "acquiredAt", ARGV[5], "extensions", 0)
  redis.pcall("pexpire", KEYS[i], ARGV[2])
end
return {count, fence}
`;

/**
 * Resets the TTL of every resource, only if all still hold the value. Returns the count extended.
 * With ARGV[3] (resource count), the KEYS after the resources are their owner entries: each one that
 * belongs to this value gets the new TTL and one more extension (pcall: a foreign key type is skipped).
 */
export const EXTEND_SCRIPT = `
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
`;

/**
 * Deletes each resource that still holds the value (never another holder's). Returns the count deleted.
 * ARGV[2] is the resource count: the KEYS after the resources are their owner entries, deleted with
 * them. With ARGV[3] = "1", publishes each deletion on `redlock:released:<key>` (handoff.ts).
 */
export const RELEASE_SCRIPT = `
local count = 0
local resourceCount = tonumber(ARGV[2]) or #KEYS
for i = 1, resourceCount do
  local key = KEYS[i]
  if redis.call("get", key) == ARGV[1] then
    -- The owner entry goes in the same DEL: one command, not two.
    if KEYS[resourceCount + i] then redis.call("del", key, KEYS[resourceCount + i]) else redis.call("del", key) end
    if ARGV[3] == "1" then redis.pcall("publish", "redlock:released:" .. key, "") end
    count = count + 1
  end
end
return count
`;

/**
 * Records a fencing token: only if every resource still holds the value, raises each resource's
 * counter to the token (never lowers it). Returns 1 when recorded, 0 when the lock was lost here.
 */
export const FENCE_SCRIPT = `
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
`;

export const FENCE_PREFIX = "redlock:fence:";
export const fenceKey = (resource: string) => FENCE_PREFIX + resource;

export const OWNER_PREFIX = "redlock:owner:";
/** The owner entry of a resource: a hash (value, labels, acquiredAt, extensions) with the lock's TTL. */
export const ownerKey = (resource: string) => OWNER_PREFIX + resource;
export const WAITERS_PREFIX = "redlock:waiters:";
/** The contenders waiting for a resource: a sorted set of JSON members scored by their expiry (epoch ms). */
export const waitersKey = (resource: string) => WAITERS_PREFIX + resource;

/**
 * Adds (ARGV[1] "add") or removes ("remove") one waiter member (ARGV[2]) on every KEYS waiters set.
 * Adding scores it with its expiry ARGV[3] (epoch ms), drops members that expired before ARGV[4]
 * (now) and keeps the set's TTL at least as long as its latest expiry, so it never outlives a wait.
 */
export const WAITERS_SCRIPT = `
for i, key in ipairs(KEYS) do
  if ARGV[1] == "add" then
    redis.call("zremrangebyscore", key, "-inf", "(" .. ARGV[4])
    redis.call("zadd", key, ARGV[3], ARGV[2])
    local latest = redis.call("zrange", key, -1, -1, "withscores")
    redis.call("pexpire", key, math.max(1, math.ceil(tonumber(latest[2]) - tonumber(ARGV[4]))))
  else
    redis.call("zrem", key, ARGV[2])
  end
end
return #KEYS
`;

/**
 * Reads, without writing, what a node knows of each resource: KEYS come in threes (resource, owner
 * entry, waiters set). ARGV[1] is now (epoch ms): waiters that expired before it are left out;
 * ARGV[2] bounds the waiters listed. The owner entry is returned only if it belongs to the value
 * read here, in the same atomic read, so a stale or foreign entry is never shown as the owner.
 * Returns per resource {type, value, pttl, owner {labels, acquiredAt, extensions} or nil, waiter count, waiters with scores}.
 */
export const INSPECT_SCRIPT = `
local replies = {}
for i = 1, #KEYS, 3 do
  local key, ownerEntry, waiters = KEYS[i], KEYS[i + 1], KEYS[i + 2]
  local kind = redis.call("type", key).ok
  local value = false
  if kind == "string" then value = redis.call("get", key) end
  local owner = false
  if value and redis.call("type", ownerEntry).ok == "hash" then
    local fields = redis.call("hmget", ownerEntry, "value", "labels", "acquiredAt", "extensions")
    if fields[1] == value then owner = {fields[2], fields[3], fields[4]} end
  end
  local waiterCount, listed = 0, {}
  if redis.call("type", waiters).ok == "zset" then
    waiterCount = redis.call("zcount", waiters, ARGV[1], "+inf")
    listed = redis.call("zrangebyscore", waiters, ARGV[1], "+inf", "withscores", "limit", 0, ARGV[2])
  end
  replies[#replies + 1] = {kind, value, redis.call("pttl", key), owner, waiterCount, listed}
end
return replies
`;
