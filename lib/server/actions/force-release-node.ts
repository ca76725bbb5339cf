/**
 * Compare-and-delete on one node, atomic because it runs as one script.
 * KEYS[1] the lock key; ARGV[1] mode: "check" (report only), "expect" (delete only if the holder is
 * ARGV[2]), "any" (delete whatever lock is there). A string lock's holder is its value; a Redisson
 * hash lock's holder is its sorted holder fields joined by "," (as the snapshot shows it).
 * Returns { outcome, holder }: outcome "deleted" | "match" | "mismatch" | "absent" | "not_a_lock".
 * KEYS[2]: the library's owner entry for the lock (`redlock:owner:<key>`), deleted with it: it would
 * expire with the lock anyway, but must not outlive a force-release as a stale "holder".
 * KEYS[3] (optional): an outcome marker, set to the outcome for ARGV[3] ms, so that a node which
 * answers too late can still be asked what this very call did (force-release-follow-up.ts).
 */
export const FORCE_RELEASE_SCRIPT = `
local function run()
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then return {'absent', ''} end
local holder
if kind == 'string' then
  holder = redis.call('GET', KEYS[1])
elseif kind == 'hash' then
  local fields = {}
  for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
    if field ~= 'mode' then table.insert(fields, field) end
  end
  table.sort(fields)
  holder = table.concat(fields, ',')
else
  return {'not_a_lock', kind}
end
local matches = ARGV[1] == 'any' or holder == ARGV[2]
if ARGV[1] == 'check' then
  if holder == ARGV[2] then return {'match', holder} end
  return {'mismatch', holder}
end
if matches then
  redis.call('DEL', KEYS[1], KEYS[2])
  return {'deleted', holder}
end
return {'mismatch', holder}
end
local result = run()
if KEYS[3] then redis.call('SET', KEYS[3], result[1], 'PX', ARGV[3]) end
return result
`;
