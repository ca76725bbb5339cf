import "server-only";
/**
 * `GET /api/locks/{resource}`: one key read fresh from every node, bypassing the shared snapshot,
 * together with the library's fencing counter for it (`redlock:fence:<resource>`). The snapshot
 * never reads counters: it skips every `redlock:` key, and one extra GET per lock would cost it.
 */
import type { Redis } from "ioredis";
import type { LockDetail, LockResponse } from "@/lib/api";
import { FENCE_PREFIX } from "@redlock-console/redlock";
import type { NodeKeyState } from "./fold";
import type { ConsoleNode } from "../node-registry";
import { READ_KEY_LUA, readScript, runReadScript, toKeyState } from "./read-node";
import { foldNodes } from "./snapshot";

/** KEYS[1] the resource, KEYS[2] its fencing counter: both in one round trip per node. */
const READ_ONE_SCRIPT = readScript(`${READ_KEY_LUA}
local fence = false
if redis.call('TYPE', KEYS[2])['ok'] == 'string' then fence = redis.call('GET', KEYS[2]) end
return {readKey(KEYS[1]), fence}
`);
const FENCE = Buffer.from(FENCE_PREFIX);

interface NodeRead {
  readonly state: NodeKeyState | null;
  readonly fencingToken: number | null;
}

/** The counter's decimal string as a number; anything else (absent, garbled, huge) is no token. */
function parseFencingToken(reply: unknown): number | null {
  const text = reply === null || reply === undefined ? "" : String(reply);
  if (!/^\d+$/.test(text)) return null;
  const token = Number(text);
  return Number.isSafeInteger(token) ? token : null;
}

async function readResourceOnNode(client: Redis, key: Buffer): Promise<NodeRead> {
  const reply = await runReadScript(client, READ_ONE_SCRIPT, [key, Buffer.concat([FENCE, key])]);
  const [keyReply, fenceReply] = Array.isArray(reply) ? reply : [];
  return { state: toKeyState(keyReply), fencingToken: parseFencingToken(fenceReply) };
}

export async function readOneLock(
  nodes: readonly ConsoleNode[],
  key: Buffer,
  quorumSize: number,
): Promise<LockResponse> {
  const serverTime = Date.now();
  const reads = await Promise.all(
    nodes.map((node) => readResourceOnNode(node.client, key).catch(() => undefined)),
  );
  const states = reads.map((read) =>
    read === undefined
      ? undefined
      : new Map(read.state ? [[key.toString("latin1"), read.state]] : []),
  );
  const [folded] = foldNodes(nodes, states, quorumSize);
  const tokens = reads.map((read) => read?.fencingToken ?? null);
  const lock: LockDetail | null = folded
    ? {
        ...folded.row,
        nodes: folded.row.nodes.map((holder, index) => ({
          ...holder,
          fencingToken: tokens[index] ?? null,
        })),
      }
    : null;
  const recorded = tokens.filter((token) => token !== null);
  return {
    serverTime,
    lock,
    fencingToken: recorded.length > 0 ? Math.max(...recorded) : null,
    unreachableNodes: nodes.filter((_, index) => reads[index] === undefined).map((node) => node.id),
  };
}
