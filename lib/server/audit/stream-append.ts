import "server-only";
/**
 * One audit stream entry on one node, trimmed by the rule every replica agreed on. Replicas share
 * the streams on the lock nodes, so a trim that followed each writer's own settings would let the
 * replica with the smallest MAXLEN (or the shortest retention) shorten the trail for all. Instead
 * each node keeps the agreed rule beside the stream (`redlock:{<stream>}:retention`, same cluster
 * slot): the largest length and the longest retention any replica configured. A replica's
 * settings can lengthen the trail, never shorten it; lowering them is an admin's explicit DEL of
 * that key (docs/security.md). Age is measured by the node's own clock (TIME), the clock its
 * stream ids carry, never by the console's.
 */
import { defineScript } from "@redlock-console/redlock";
import { withDeadline, type ConsoleNode } from "../node-registry";

export const DAY_MS = 86_400_000;

export interface StreamRetention {
  /** Approximate MAXLEN (XADD MAXLEN ~). */
  readonly maxLen: number;
  /** Entries older than this by the node's clock are trimmed (XTRIM MINID). */
  readonly retentionDays: number;
}

/** The key that holds a stream's agreed retention on each node: same slot as the stream. */
export const retentionKeyOf = (stream: string): string => `redlock:{${stream}}:retention`;

/**
 * KEYS[1] the stream, KEYS[2] its agreed retention (hash: maxLen, retentionMs). ARGV[1] this
 * replica's maxLen, ARGV[2] its retention in ms, ARGV[3..] the entry's fields. The larger of the
 * stored and the given values is kept and used; the entry is added (MAXLEN ~) and everything
 * older than the retention by the node's TIME trimmed exactly (MINID: few entries a call in the
 * steady state). Returns the entry's stream id.
 */
export const AUDIT_APPEND_SCRIPT = defineScript<
  readonly [maxLen: number, retentionMs: number, ...fields: string[]],
  string
>(`
local maxLen = tonumber(ARGV[1])
local retentionMs = tonumber(ARGV[2])
local storedLen = tonumber(redis.call('HGET', KEYS[2], 'maxLen') or '0')
local storedRetention = tonumber(redis.call('HGET', KEYS[2], 'retentionMs') or '0')
if storedLen >= maxLen then maxLen = storedLen else redis.call('HSET', KEYS[2], 'maxLen', maxLen) end
if storedRetention >= retentionMs then
  retentionMs = storedRetention
else
  redis.call('HSET', KEYS[2], 'retentionMs', retentionMs)
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', maxLen, '*', unpack(ARGV, 3))
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('XTRIM', KEYS[1], 'MINID', math.max(0, nowMs - retentionMs))
return id
`);

/** Appends on one node within the deadline; false when it did not answer or refused. */
export function appendOnNode(
  node: ConsoleNode,
  stream: string,
  retention: StreamRetention,
  fields: readonly string[],
  deadlineMs: number,
): Promise<boolean> {
  return withDeadline(
    AUDIT_APPEND_SCRIPT.run(
      node.client,
      [stream, retentionKeyOf(stream)],
      [retention.maxLen, retention.retentionDays * DAY_MS, ...fields],
    ),
    deadlineMs,
  ).then(
    () => true,
    () => false,
  );
}
