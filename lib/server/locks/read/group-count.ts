/**
 * Semaphores and read-write locks of this library (lib/redlock/semaphore.ts, read-write-lock.ts)
 * are ordinary locks on member keys: permit i of semaphore `name` is `{name}#i`, a read-write
 * lock's writer `{name}#w` and reader slot i `{name}#r<i>`. A member key alone is not proof: only
 * the count the library records beside it (`redlock:semaphore:{name}` = k permits,
 * `redlock:rwlock:{name}` = its reader slots, written with the member by one script, with a TTL at
 * least the member's) makes it one. So the read of a key of a member's shape also reads that
 * count key, one GETRANGE of a few bytes in the same script (same hash tag, same Cluster slot),
 * and no other key is touched.
 *
 * Exact by construction (membershipOf): a key is a member only when its shape is a member's AND a
 * node records the count beside it AND (for a permit or reader slot) its index is below that
 * count. A lone `{x}#0` without `redlock:semaphore:{x}` stays an ordinary lock, and so does `{x}#5`
 * of a semaphore of 3. The live index then shows the group as one row (rows/groups.ts).
 */
import { rwLockKey, semaphoreKey } from "@redlock-console/redlock";

/** The most digits a recorded count has (the library's counts are 1..1000). */
const COUNT_MAX_DIGITS = 10;

/**
 * Lua `groupCount(key)`: for a key `{name}#<digits>` the string at `redlock:semaphore:{name}`, for
 * `{name}#w` or `{name}#r<digits>` the one at `redlock:rwlock:{name}`, when it is a whole number;
 * false otherwise (another shape, no count key, another type: pcall, never an error).
 */
export const GROUP_COUNT_LUA = `
local function groupCount(key)
  local countKey = false
  local name = string.match(key, '^{(.+)}#%d+$')
  if name then
    countKey = '${semaphoreKey("'..name..'")}'
  else
    name = string.match(key, '^{(.+)}#w$') or string.match(key, '^{(.+)}#r%d+$')
    if name then countKey = '${rwLockKey("'..name..'")}' end
  end
  if not countKey then return false end
  local count = redis.pcall('GETRANGE', countKey, 0, ${COUNT_MAX_DIGITS})
  if type(count) ~= 'string' or not string.match(count, '^%d+$') then return false end
  return count
end
`;

/** readLock's count element: the recorded count, or null when none. */
export function parseGroupCount(reply: unknown): number | null {
  if (typeof reply !== "string" || !/^\d{1,10}$/.test(reply)) return null;
  return Number(reply);
}

export { memberShapeOf, type MemberShape } from "./member-shape";
import { memberShapeOf, type MemberShape } from "./member-shape";

export type GroupKind = "semaphore" | "read-write";

/** A key's place in its group. */
export interface Membership {
  /** The group's row key in the index (groupRowKey). */
  readonly rowKey: string;
  readonly kind: GroupKind;
  readonly member: MemberShape;
}

/**
 * The row key a group is kept under: `{name}#` (a semaphore) or `{name}#rw` (a read-write lock),
 * beside its members in byte order, so a glob on the member keys (`{orders}*`) still finds it. No
 * member key has either name; an ordinary lock named exactly so is hidden by the group's row.
 */
export const groupRowKey = (kind: GroupKind, name: string): string =>
  kind === "semaphore" ? `{${name}}#` : `{${name}}#rw`;

/** The recorded count among the nodes' reads (the largest, should two disagree); null when none. */
export function recordedCount(
  reads: ReadonlyArray<{ readonly groupCount?: number | null } | null | undefined>,
): number | null {
  let count: number | null = null;
  for (const read of reads) {
    const recorded = read?.groupCount ?? null;
    if (recorded !== null && (count === null || recorded > count)) count = recorded;
  }
  return count;
}

/** The group `key` (latin1 of its bytes) belongs to, given what the nodes read; null: none. */
export function membershipOf(
  key: string,
  reads: ReadonlyArray<{ readonly groupCount?: number | null } | null | undefined>,
): Membership | null {
  const member = memberShapeOf(key);
  if (!member) return null;
  const count = recordedCount(reads);
  if (count === null) return null;
  if (member.kind !== "writer" && member.index >= count) return null;
  const kind: GroupKind = member.kind === "permit" ? "semaphore" : "read-write";
  return { rowKey: groupRowKey(kind, member.name), kind, member };
}
