import "server-only";
/**
 * The semaphore or read-write lock a resource names, for its page (issue 44): the counts recorded
 * at `redlock:semaphore:{name}` and `redlock:rwlock:{name}` (a GETRANGE of a few bytes each per
 * node), then every member key read fresh in one script call per node (read-node.ts's read; the
 * members share the hash tag `{name}`, so one Cluster slot), folded as ordinary locks.
 */
import type { GroupMember, LockGroupDetail, LockRow } from "@/lib/api";
import { permitKey, readerKey, rwLockKey, semaphoreKey, writerKey } from "@redlock-console/redlock";
import type { ConsoleNode } from "../../node-registry";
import { parseGroupCount, type MemberShape } from "../read/group-count";
import type { NodeKeyState } from "../read/key-state";
import { readLockKeys } from "../read/read-node";
import type { GroupKind } from "../read/group-count";
import { foldGroup } from "../rows/groups";
import { foldNodes, type FlagLimits } from "../rows/fold-nodes";

const COUNT_MAX_DIGITS = 10;

/** The largest count recorded at `countKey` among the nodes; null when none records one. */
async function countOn(nodes: readonly ConsoleNode[], countKey: string): Promise<number | null> {
  const key = Buffer.from(countKey, "latin1");
  const counts = await Promise.all(
    nodes.map((node) =>
      node.client.getrange(key, 0, COUNT_MAX_DIGITS).then(parseGroupCount, () => null),
    ),
  );
  const recorded = counts.filter((count): count is number => count !== null && count > 0);
  return recorded.length > 0 ? Math.max(...recorded) : null;
}

/** The members of a group of `count`, in the order its page lists them. */
function membersOf(kind: GroupKind, name: string, count: number): MemberShape[] {
  const indexes = Array.from({ length: count }, (_, index) => index);
  return kind === "semaphore"
    ? indexes.map((index) => ({ kind: "permit", name, index }))
    : [
        { kind: "writer", name },
        ...indexes.map((index) => ({ kind: "reader" as const, name, index })),
      ];
}

const keyOf = (member: MemberShape): string =>
  member.kind === "permit"
    ? permitKey(member.name, member.index)
    : member.kind === "writer"
      ? writerKey(member.name)
      : readerKey(member.name, member.index);

/** What every node holds under the member keys (undefined: the node did not answer). */
async function readMembers(
  nodes: readonly ConsoleNode[],
  keys: readonly string[],
  nowMs: number,
): Promise<Array<Map<string, NodeKeyState> | undefined>> {
  const buffers = keys.map((key) => Buffer.from(key, "latin1"));
  return Promise.all(
    nodes.map(async (node) => {
      try {
        // The Cluster client routes the script by its keys' one slot.
        const { states } = await readLockKeys(node.client, buffers, nowMs);
        const held = new Map<string, NodeKeyState>();
        states.forEach((state, index) => state && held.set(keys[index]!, state));
        return held;
      } catch {
        return undefined;
      }
    }),
  );
}

/** The group named `name` (latin1 of its bytes), read fresh; null when no node records one. */
export async function readGroup(
  nodes: readonly ConsoleNode[],
  name: string,
  quorumSize: number,
  limits?: FlagLimits,
): Promise<LockGroupDetail | null> {
  const [permits, readerSlots] = await Promise.all([
    countOn(nodes, semaphoreKey(name)),
    countOn(nodes, rwLockKey(name)),
  ]);
  const kind: GroupKind | null = permits ? "semaphore" : readerSlots ? "read-write" : null;
  if (kind === null) return null;
  const count = (permits ?? readerSlots)!;
  const members = membersOf(kind, name, count);
  const keys = members.map(keyOf);
  const serverTimeMs = Date.now();
  const reads = await readMembers(nodes, keys, serverTimeMs);
  const thresholds = limits && { ...limits, serverTimeMs };
  const rows = new Map<string, LockRow>(
    foldNodes(nodes, reads, quorumSize, thresholds).map(({ sortKey, row }) => [sortKey, row]),
  );
  const listed: GroupMember[] = members.map((member, index) => {
    const row = rows.get(keys[index]!) ?? null;
    const named = row ?? { resource: Buffer.from(keys[index]!, "latin1").toString("utf8") };
    return {
      kind: member.kind,
      index: member.kind === "writer" ? null : member.index,
      resource: named.resource,
      ...(row?.resourceBase64 && { resourceBase64: row.resourceBase64 }),
      lock: row,
      // Read by the page's reader, which shares one read per session (read-one.ts).
      holderSession: null,
    };
  });
  const held = members.flatMap((member, index) => {
    const row = listed[index]!.lock;
    return row ? [{ member, row }] : [];
  });
  const nodeIds = nodes.map((node) => node.id);
  const summary = foldGroup(kind, name, count, held, nodeIds, quorumSize, thresholds);
  return {
    kind,
    ...(kind === "semaphore"
      ? { semaphore: summary?.semaphore ?? { kind: "redlock", permits: count, used: 0 } }
      : {
          readWrite: summary?.readWrite ?? { readerSlots: count, readers: 0, writer: false },
        }),
    members: listed,
    readOnly: false,
  };
}
