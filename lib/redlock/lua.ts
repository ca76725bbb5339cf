/**
 * One script per operation and node, so a multi-resource lock is all-or-nothing on each node.
 * KEYS are the resources; ARGV[1] is the lock value. Fencing counters live at `redlock:fence:<resource>`
 * and are passed as KEYS too (after the resources), so scripts declare every key they touch.
 */

/**
 * Sets every resource to the value with a TTL, only if none exists. Returns {set count, highest
 * fencing counter}; the counter is read even when refused, so a new token outbids every node that answered.
 */
export const ACQUIRE_SCRIPT = `
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
`;

/** Resets the TTL of every resource, only if all still hold the value. Returns the count extended. */
export const EXTEND_SCRIPT = `
for i, key in ipairs(KEYS) do
  if redis.call("get", key) ~= ARGV[1] then
    return 0
  end
end
for i, key in ipairs(KEYS) do
  redis.call("pexpire", key, ARGV[2])
end
return #KEYS
`;

/**
 * Deletes each resource that still holds the value (never another holder's). Returns the count
 * deleted. With ARGV[2] = "1", publishes each deletion on `redlock:released:<key>` (handoff.ts).
 */
export const RELEASE_SCRIPT = `
local count = 0
for i, key in ipairs(KEYS) do
  if redis.call("get", key) == ARGV[1] then
    redis.call("del", key)
    if ARGV[2] == "1" then redis.pcall("publish", "redlock:released:" .. key, "") end
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
