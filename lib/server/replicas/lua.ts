import "server-only";
/**
 * The replicas' scripts on the state store: the writer's lease (lease.ts) and the fenced append of
 * the shared history (shared-history.ts). Each check and its write run in one script, so nothing
 * can come between them.
 */
import { defineScript } from "@redlock-console/redlock";

/**
 * KEYS[1] the lease, KEYS[2] the epoch counter. ARGV[1] the caller's token ("" when it holds none),
 * ARGV[2] its replica id, ARGV[3] the lease in ms, ARGV[4] a random nonce. Renews the caller's lease,
 * or takes a free one under the next epoch. Returns { the holder's token, 1 when it is the caller's }.
 */
export const LEASE_SCRIPT = defineScript<
  readonly [token: string, replicaId: string, leaseMs: string, nonce: string],
  [token: string, mine: 0 | 1]
>(`
local current = redis.call('GET', KEYS[1])
if current and current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {current, 1}
end
if current then return {current, 0} end
local epoch = redis.call('INCR', KEYS[2])
local token = epoch .. ':' .. ARGV[2] .. ':' .. ARGV[4]
redis.call('SET', KEYS[1], token, 'PX', ARGV[3])
return {token, 1}
`);

/** KEYS[1] the lease; ARGV[1] the caller's token. Deletes the lease only when it is still the caller's. */
export const RESIGN_SCRIPT = defineScript<readonly [token: string], number>(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/**
 * The fenced append. KEYS[1] the lease, KEYS[2] the transitions stream, KEYS[3] the as-of stream,
 * KEYS[4] the last id written. ARGV[1] the writer's token, ARGV[2] its tag (epoch:replica), ARGV[3]
 * the stream's MAXLEN, ARGV[4] the as-of instant ("" for none), then (id, transition JSON) pairs in
 * increasing id order. Writes nothing unless the lease holds the writer's token, compared for
 * EQUALITY (lease.ts says why not "greater or equal"), and every id is above the last one written.
 * Returns {'ok'}, {'fenced'}, or {'order', the last id written}.
 */
export const APPEND_SCRIPT = defineScript<readonly string[], [outcome: string, lastId?: string]>(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'fenced'} end
local lastText = redis.call('GET', KEYS[4]) or '0'
local last = tonumber(lastText)
for i = 5, #ARGV, 2 do
  local id = tonumber(ARGV[i])
  if id == nil or id <= last then return {'order', lastText} end
  last = id
end
for i = 5, #ARGV, 2 do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 't', ARGV[i + 1], 'w', ARGV[2])
end
if #ARGV >= 6 then redis.call('SET', KEYS[4], ARGV[#ARGV - 1]) end
if ARGV[4] ~= '' then redis.call('XADD', KEYS[3], 'MAXLEN', '1', '*', 'a', ARGV[4], 'w', ARGV[2]) end
return {'ok'}
`);
