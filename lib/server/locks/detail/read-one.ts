import "server-only";
/**
 * `GET /api/locks/{resource}`: one key read fresh from every node, together with the library's
 * fencing counter for it (fenceKey) and its waiters list, which the live index does not keep (it
 * skips every `redlock:` key); `createLockReader` shares that read among viewers and heals the
 * index when the read finds a lock the index missed. Over 300 lines, one job: the page's one read,
 * which for a semaphore or read-write lock also joins its members' read (read-group.ts) and each
 * member's holder session, shared among viewers like the rest.
 */
import {
  MAX_WAITERS_LISTED,
  type HolderSession,
  type LockGroupDetail,
  type LockDetail,
  type LockResponse,
  type Waiter,
} from "@/lib/api";
import { clusterSlot, defineScript, fenceKey, legacyFenceKey } from "@redlock-console/redlock";
import { readGroup } from "./read-group";
import { ApiError } from "../../errors";
import type { NodeKeyState } from "../read/key-state";
import type { FlagThresholds } from "../rows/fold";
import type { ConsoleNode } from "../../node-registry";
import {
  EXISTS_EITHER_LUA,
  ownershipKeys,
  parseWaiterMember,
  sessionOfValue,
  READ_LOCK_LUA,
} from "../read/ownership";
import { READ_KEY_LUA, READ_VALUE_MAX_BYTES } from "../read/read-key";
import { toKeyState } from "../read/read-node";
import { foldNodes, type FlagLimits } from "../rows/fold-nodes";
import { lockMatchOf, OUTSIDE_LOCK_MATCH_READ } from "../read/lock-match";
import type { LiveIndex } from "../rows/live-index";

/**
 * KEYS[1..3] the resource, its 1.x owner entry and waiters, KEYS[4] its fencing counter, KEYS[5]
 * (optional) 1.x's counter; ARGV[1] now (epoch ms), ARGV[2] most waiters listed. All in one round
 * trip per node. Replies the resource's `readLock` reply, the counter (the higher of the two; null
 * when absent) and the live waiters, member then score (members over READ_VALUE_MAX_BYTES left out).
 */
export const READ_ONE_SCRIPT = defineScript<
  readonly [nowMs: number, waitersListed: number],
  [lock: unknown, fence: string | null, waiters: string[]]
>(`${READ_KEY_LUA}${EXISTS_EITHER_LUA}${READ_LOCK_LUA}
local fence = false
for i = 4, #KEYS do
  if redis.call('TYPE', KEYS[i])['ok'] == 'string' and redis.call('STRLEN', KEYS[i]) <= 20 then
    local counter = redis.call('GET', KEYS[i])
    if not fence or (tonumber(counter) or 0) > (tonumber(fence) or 0) then fence = counter end
  end
end
local waiters = {}
if redis.call('TYPE', KEYS[3])['ok'] == 'zset' then
  local listed = redis.call('ZRANGEBYSCORE', KEYS[3], ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, ARGV[2])
  -- A waiter entry is a short JSON: a longer member is no waiter of a lock library, never returned.
  for index = 1, #listed, 2 do
    if #listed[index] <= ${READ_VALUE_MAX_BYTES} then
      table.insert(waiters, listed[index])
      table.insert(waiters, listed[index + 1])
    end
  end
end
return {readLock(KEYS[1], KEYS[2], KEYS[3], ARGV[1]), fence, waiters}
`);

type NodeWaiter = Omit<Waiter, "nodeCount">;

interface NodeRead {
  readonly state: NodeKeyState | null;
  readonly fencingToken: number | null;
  readonly waiters: NodeWaiter[];
}

/** The counter's decimal string as a number; anything else (absent, garbled, huge) is no token. */
function parseFencingToken(reply: unknown): number | null {
  const text = reply === null || reply === undefined ? "" : String(reply);
  if (!/^\d+$/.test(text)) return null;
  const token = Number(text);
  return Number.isSafeInteger(token) ? token : null;
}

/** ZRANGE … WITHSCORES reply: member, score, member, score… */
function parseWaiters(reply: unknown): NodeWaiter[] {
  if (!Array.isArray(reply)) return [];
  const waiters: NodeWaiter[] = [];
  for (let index = 0; index + 1 < reply.length; index += 2) {
    const waiter = parseWaiterMember(String(reply[index]), Number(reply[index + 1]));
    if (waiter) waiters.push(waiter);
  }
  return waiters;
}

/** One entry per contender (it registers on every node), longest waiting first. */
export function mergeWaiters(perNode: ReadonlyArray<readonly NodeWaiter[]>): Waiter[] {
  const byId = new Map<string, Waiter>();
  for (const waiters of perNode) {
    for (const waiter of waiters) {
      const seen = byId.get(waiter.id);
      byId.set(
        waiter.id,
        seen
          ? {
              ...seen,
              since: Math.min(seen.since, waiter.since),
              expiresAt: Math.max(seen.expiresAt, waiter.expiresAt),
              nodeCount: seen.nodeCount + 1,
            }
          : { ...waiter, nodeCount: 1 },
      );
    }
  }
  return [...byId.values()].sort((a, b) => a.since - b.since || (a.id < b.id ? -1 : 1));
}

/**
 * The script's keys on `node`. On a cluster every key must share the resource's slot (the client
 * routes the script by it): 1.x's owner entry is read only where it does (a hash-tagged name; 1.x
 * could not lock other names on a cluster), else the waiters key stands in for it (a sorted set is
 * no owner entry); 1.x's fencing counter was never raised on clusters.
 */
function keysOnNode(node: ConsoleNode, key: Buffer): Buffer[] {
  const [lock, ownerEntry, waiters] = ownershipKeys(key) as [Buffer, Buffer, Buffer];
  const fence = fenceKey(key);
  if (node.kind === "cluster")
    return [
      lock,
      clusterSlot(ownerEntry) === clusterSlot(lock) ? ownerEntry : waiters,
      waiters,
      fence,
    ];
  const legacyFence = Buffer.from(legacyFenceKey(key.toString("latin1")), "latin1");
  return [lock, ownerEntry, waiters, fence, ...(legacyFence.equals(fence) ? [] : [legacyFence])];
}

async function readResourceOnNode(
  node: ConsoleNode,
  key: Buffer,
  nowMs: number,
): Promise<NodeRead> {
  const keys = keysOnNode(node, key);
  const reply = await READ_ONE_SCRIPT.run(node.client, keys, [nowMs, MAX_WAITERS_LISTED]);
  const [keyReply, fenceReply, waitersReply] = Array.isArray(reply) ? reply : [];
  return {
    state: toKeyState(keyReply),
    fencingToken: parseFencingToken(fenceReply),
    waiters: parseWaiters(waitersReply),
  };
}

/** The one-resource read without its holder's session (createLockReader adds it). */
type FreshRead = Omit<LockResponse, "holderSession" | "index">;

/** A read of a name outside LOCK_MATCH whose group's members are inside: the key itself unread. */
const unreadKey = (): FreshRead => ({
  serverTime: Date.now(),
  lock: null,
  fencingToken: null,
  unreachableNodes: [],
});

export async function readOneLock(
  nodes: readonly ConsoleNode[],
  key: Buffer,
  quorumSize: number,
  limits?: FlagLimits,
): Promise<FreshRead> {
  const serverTime = Date.now();
  const thresholds: FlagThresholds | undefined = limits && { ...limits, serverTimeMs: serverTime };
  const reads = await Promise.all(
    nodes.map((node) => readResourceOnNode(node, key, serverTime).catch(() => undefined)),
  );
  const states = reads.map((read) =>
    read === undefined
      ? undefined
      : new Map(read.state ? [[key.toString("latin1"), read.state]] : []),
  );
  const [folded] = foldNodes(nodes, states, quorumSize, thresholds);
  const tokens = reads.map((read) => read?.fencingToken ?? null);
  const lock: LockDetail | null = folded
    ? {
        ...folded.row,
        nodes: folded.row.nodes.map((holder, index) => ({
          ...holder,
          fencingToken: tokens[index] ?? null,
        })),
        waiterList: mergeWaiters(reads.map((read) => read?.waiters ?? [])),
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

/** Resources whose fresh read is kept at once (each for maxAgeMs): bounds memory, not viewers. */
const LOCK_READS_KEPT = 1_000;

export interface LockReaderOptions {
  readonly nodes: readonly ConsoleNode[];
  readonly quorumSize: number;
  readonly limits: FlagLimits;
  readonly index: LiveIndex;
  readonly patterns: readonly string[];
  /** How long one fresh read of a resource serves every viewer of its page. */
  readonly maxAgeMs: number;
  /**
   * The session of whoever holds `value`, read from the nodes (sessions/read-session.ts, passed in
   * by the composition root: the sessions wing stands on the locks, not under them).
   */
  readonly readHolderSession: (value: string) => Promise<HolderSession | null>;
}

/** Kept reads, each for maxAgeMs, at most LOCK_READS_KEPT of them: one read serves every viewer. */
function sharedReads<T>(maxAgeMs: number): (name: string, read: () => Promise<T>) => Promise<T> {
  const reads = new Map<string, { atMs: number; read: Promise<T> }>();
  return (name, read) => {
    const kept = reads.get(name);
    if (kept && performance.now() - kept.atMs < maxAgeMs) return kept.read;
    const fresh = read();
    reads.delete(name);
    if (reads.size >= LOCK_READS_KEPT) reads.delete(reads.keys().next().value!);
    reads.set(name, { atMs: performance.now(), read: fresh });
    fresh.catch(() => reads.delete(name));
    return fresh;
  };
}

/** What the page says when its read found a lock the list lacked (the index has read it in since). */
const MISSED_NOTE =
  "The list of locks did not show this lock when this page read it: the console's live index had " +
  "missed it (a key whose notifications it skips, or one it had not read yet). This page reads " +
  "every node itself, and the console has now read the key into its index: the list shows it too.";

/**
 * `GET /api/locks/{resource}` for any number of viewers: the page serves its own fresh read (one
 * per resource per maxAgeMs, shared by every viewer), never the index's row in its place. When
 * that read finds a lock the index has no row for, the answer says so (`index.missedLock`) and the
 * index reads the key at once, so the list heals instead of calling the lock free until the next
 * resync. A key outside LOCK_MATCH is refused before anything is read (404 `outside_lock_match`):
 * LOCK_MATCH says which keys are locks, so no other key's value is served (issue 32 row 2); a key
 * inside it that holds no lock format reads as free (read-node.ts).
 */
export function createLockReader(
  options: LockReaderOptions,
): (key: Buffer) => Promise<LockResponse> {
  const lockMatch = lockMatchOf(options.patterns);
  const lockReads = sharedReads<FreshRead>(options.maxAgeMs);
  const sessionReads = sharedReads<HolderSession | null>(options.maxAgeMs);
  const groupReads = sharedReads<LockGroupDetail | null>(options.maxAgeMs);
  const freshRead = (key: Buffer, keyCovered: boolean): Promise<FreshRead> =>
    lockReads(key.toString("latin1"), async () => {
      const name = key.toString("latin1");
      const [read, group] = await Promise.all([
        keyCovered
          ? readOneLock(options.nodes, key, options.quorumSize, options.limits)
          : unreadKey(),
        groupReads(name, () => readGroup(options.nodes, name, options.quorumSize, options.limits)),
      ]);
      return group ? { ...read, group } : read;
    });
  const withHolderSession = async (
    read: FreshRead,
    index: LockResponse["index"],
  ): Promise<LockResponse> => {
    // Shared per session: every lock of one holder reads its session once per maxAgeMs.
    const sessionOf = (value: string | null | undefined) =>
      value === null || value === undefined
        ? Promise.resolve(null)
        : sessionReads(sessionOfValue(value) ?? "no session", () =>
            options.readHolderSession(value),
          );
    // A semaphore's or read-write lock's members each have their holder's session, for their
    // force-release dialogs, as a lock's page has its holder's.
    const group = read.group && {
      ...read.group,
      members: await Promise.all(
        read.group.members.map(async (member) => ({
          ...member,
          holderSession: await sessionOf(member.lock?.value),
        })),
      ),
    };
    const holderSession = await sessionOf(read.lock?.value);
    return { ...read, ...(group && { group }), holderSession, index };
  };
  /** Whether the index lacks the lock `fresh` found; when it does, it reads the key in now. */
  const compareWithIndex = async (name: string, fresh: FreshRead) => {
    const { index } = options;
    const agrees = { missedLock: false, note: null };
    // While a node is being listed the index is not expected to hold every lock yet.
    if (fresh.lock === null || !index.complete) return agrees;
    if (index.row(name, Date.now()) !== null) return agrees;
    await index.heal(name);
    // Still no row: the lock went since this read (reads are shared for maxAgeMs), nothing missed.
    if (index.row(name, Date.now()) === null) return agrees;
    return { missedLock: true, note: MISSED_NOTE };
  };
  return async (key) => {
    const name = key.toString("latin1");
    // A semaphore's or read-write lock's name is read when its member keys are lock keys.
    const coverage = lockMatch(key);
    if (coverage === "outside") throw new ApiError("outside_lock_match", OUTSIDE_LOCK_MATCH_READ);
    const fresh = await freshRead(key, coverage === "lock-key");
    return withHolderSession(fresh, await compareWithIndex(name, fresh));
  };
}
