import type { Core } from "./core";
import { legacyOwnerKey, waitersKey } from "./keys";
import { parseOwner } from "./owner";
import { decodeValue, decodeWaiterMember, VALUE_FORMAT_PREFIX } from "./protocol";
import { quorumSize, runAttempt } from "./quorum";
import type { Settings } from "./settings";
import type { NodeInspection, OwnerInfo, ResourceInspection, WaiterInfo } from "./types";
import { defineScript } from "./script";

/**
 * Reads, without writing, what a node knows of each resource: KEYS come in groups of ARGV[3] — the
 * resource, its waiters set, then (3) 1.x's owner entry. ARGV[1] is now (epoch ms): waiters that
 * expired before it are left out; ARGV[2] bounds the waiters listed. A 1.x owner entry is read only
 * for a value that does not carry its owner, and returned only if it belongs to the value read here,
 * in the same atomic read, so a stale or foreign entry is never shown as the owner.
 * Returns per resource {type, value, pttl, 1.x owner {labels, acquiredAt, extensions} or nil, waiter count, waiters with scores}.
 */
export const INSPECT = defineScript<
  readonly [nowMs: number, waitersListed: number, keysPerResource: 2 | 3],
  NodeRow[]
>(`
local replies = {}
local stride = tonumber(ARGV[3])
for i = 1, #KEYS, stride do
  local key, waiters, ownerEntry = KEYS[i], KEYS[i + 1], KEYS[i + 2]
  local kind = redis.call("type", key).ok
  local value = false
  if kind == "string" then value = redis.call("get", key) end
  local owner = false
  if ownerEntry and value and string.sub(value, 1, ${VALUE_FORMAT_PREFIX.length}) ~= "${VALUE_FORMAT_PREFIX}"
    and redis.call("type", ownerEntry).ok == "hash" then
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
`);

/** Most resources one inspect() call reads: each is two or three keys in one script call per node. */
export const INSPECT_MAX_RESOURCES = 1_000;
/** Most waiters a node lists per resource (the count is exact beyond it). */
const WAITERS_LISTED = 100;

/** One resource's row of the script's reply: {type, value, pttl, owner, waiter count, waiters}. */
type NodeRow = [string, string | null, number, [string, string, string] | null, number, string[]];

function parseWaiters(listed: readonly string[]): WaiterInfo[] {
  const waiters: WaiterInfo[] = [];
  for (let index = 0; index + 1 < listed.length; index += 2) {
    // Not a member this library wrote: skipped.
    const member = decodeWaiterMember(listed[index]!);
    if (!member) continue;
    const { id, labels, since, session } = member;
    const expiresAt = Number(listed[index + 1]);
    waiters.push({ id, labels, since, ...(session !== undefined && { session }), expiresAt });
  }
  return waiters;
}

/** Folds each node's view of one resource into holder, quorum, validity, owner and waiters. */
function fold(
  resource: string,
  nodes: NodeInspection[],
  waitersByNode: WaiterInfo[][],
  quorum: number,
): ResourceInspection {
  // Holders are told apart by value; a key of another type (a Redisson hash…) is one holder per type.
  const holders = new Map<string, NodeInspection[]>();
  for (const node of nodes) {
    if (node.keyType === undefined || node.keyType === "none") continue;
    const holder = node.value ?? `\0${node.keyType}`;
    holders.set(holder, [...(holders.get(holder) ?? []), node]);
  }
  const top = [...holders.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  const held = top.length >= quorum;
  const ttlsMs = top.map((node) => (node.pttlMs === -1 ? Infinity : node.pttlMs!));
  const validityMs = held ? ttlsMs.sort((a, b) => b - a)[quorum - 1]! : 0;
  const owners = top.flatMap((node) => (node.owner ? [node.owner] : []));
  const extensions = owners.flatMap((entry) => entry.extensions ?? []);
  const owner: OwnerInfo | undefined = owners[0] && {
    ...owners[0],
    // 1.x entries: a node that missed an extension counts fewer; none can count more than happened.
    ...(extensions.length > 0 && { extensions: Math.max(...extensions) }),
  };
  const waiters = new Map<string, WaiterInfo>();
  for (const waiter of waitersByNode.flat()) {
    const known = waiters.get(waiter.id);
    if (!known || known.expiresAt < waiter.expiresAt) waiters.set(waiter.id, waiter);
  }
  return {
    resource,
    state: held
      ? "held"
      : holders.size === 0
        ? "free"
        : holders.size === 1
          ? "partial"
          : "conflict",
    held,
    value: top[0]?.value,
    quorum: top.length,
    quorumSize: quorum,
    answeredCount: nodes.filter((node) => !node.error).length,
    validityMs,
    ...(owner && { owner }),
    waiters: [...waiters.values()].sort((a, b) => a.since - b.since),
    nodes,
  };
}

/**
 * Reads each resource on every node at once, without acquiring or writing anything: one script
 * call per node, each bounded by `nodeTimeout`; a node that does not answer in time is reported
 * with its error and counts as holding nothing.
 */
export async function inspect(
  core: Core,
  resources: readonly string[],
  settings: Settings,
): Promise<ResourceInspection[]> {
  if (resources.length > INSPECT_MAX_RESOURCES)
    throw new TypeError(
      `inspect() reads at most ${INSPECT_MAX_RESOURCES} resources per call, got ${resources.length}.`,
    );
  const nowMs = Date.now();
  // On a cluster node, 1.x's owner entry of an untagged name sits in another slot; 1.x could not
  // write one there anyway (CROSSSLOT), so it is only read from single servers.
  const readsLegacyOwner = !core.nodes.some((node) => node.isCluster);
  const attempt = await runAttempt(core.nodes, {
    script: INSPECT,
    keys: resources.flatMap((resource) =>
      readsLegacyOwner
        ? [resource, waitersKey(resource), legacyOwnerKey(resource)]
        : [resource, waitersKey(resource)],
    ),
    args: [nowMs, WAITERS_LISTED, readsLegacyOwner ? 3 : 2],
    timeoutMs: settings.nodeTimeout,
    judge: (reply) => ({ vote: "for", reply }),
    decideEarly: false,
    decideOnMajorityAnswered: false,
    gateRestarts: false,
  });
  return resources.map((resource, resourceIndex) => {
    const waitersByNode: WaiterInfo[][] = [];
    const nodes = core.nodes.map((node, index): NodeInspection => {
      const answer = attempt.answers[index];
      const base = { index, address: node.address };
      if (answer?.vote !== "for") return { ...base, error: answer?.error };
      const [keyType, value, pttlMs, ownerFields, waiterCount, listed] = (
        answer.reply as NodeRow[]
      )[resourceIndex]!;
      waitersByNode.push(parseWaiters(listed).filter((waiter) => waiter.expiresAt >= nowMs));
      const owner =
        (value !== null ? decodeValue(value)?.owner : undefined) ??
        (ownerFields ? parseOwner(...ownerFields) : undefined);
      return {
        ...base,
        keyType,
        ...(value !== null && { value }),
        pttlMs,
        ...(owner && { owner }),
        waiterCount,
      };
    });
    return fold(resource, nodes, waitersByNode, quorumSize(core.nodes.length));
  });
}
