/**
 * The keys a lock uses on each node besides its resources. Scripts are passed every key they touch
 * as KEYS (Redis's rule for scripts), so these are computed here and handed to them.
 *
 * Every auxiliary key hashes to the same Redis Cluster slot as its resource, so one script can touch
 * both on a cluster node (no CROSSSLOT), whatever the resource's name:
 * - a resource with a hash tag (`{orders}:42`) keeps it: `redlock:<kind>:{orders}:42` (1.x's name);
 * - one without, and without `}` (`orders:42`), is wrapped whole: `redlock:{orders:42}:<kind>`;
 * - the rare one with a `}` but no valid tag (`a}b`, `{}x}`), and "", gets a short tag that Redis
 *   hashes to the resource's own slot (found by CRC16, as Redis computes it): `redlock:{<tag>}:<kind>:a}b`.
 * The three forms cannot be confused with one another, so `auxiliaryKeyOf` maps any of them back.
 * One written exception: a holder session's heartbeat key (sessionKey) belongs to a process, not to
 * a resource, and no multi-key script touches it.
 * The prefix itself (`redlock:`) is part of the wire protocol: protocol.ts.
 */
import { RESERVED_PREFIX } from "./protocol";

export { RESERVED_PREFIX };

/**
 * What an auxiliary key is for; `owner` is only read: 1.x wrote owner entries, 2.x keeps the owner
 * in the value. `revoke` is the console's request that the holder let go (docs/holder-sessions.md).
 */
export type AuxiliaryKind = "fence" | "waiters" | "owner" | "revoke";
const KINDS: readonly AuxiliaryKind[] = ["fence", "waiters", "owner", "revoke"];

type Name = string | Buffer;

/** What Redis Cluster hashes of a name when not all of it: the first `{…}` with something inside. */
function hashTagOf<N extends Name>(name: N): N | undefined {
  const open = name.indexOf("{");
  if (open === -1) return undefined;
  const close = name.indexOf("}", open + 1);
  return close > open + 1 ? (name.slice(open + 1, close) as N) : undefined;
}

/** True when Redis Cluster hashes only part of the name: the first `{…}` with something inside. */
export function hasHashTag(name: Name): boolean {
  return hashTagOf(name) !== undefined;
}

/**
 * The Redis Cluster slot of a name without a hash tag: CRC16-XMODEM of every byte (Redis's
 * keyHashSlot). Bitwise, as only rare names need it. Not `cluster-key-slot` (ioredis's): it reads
 * `{}x}` as tagged "x", where Redis hashes the whole name.
 */
function untaggedSlot(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc & 0x3fff;
}

/** The Redis Cluster slot of a resource name or key's bytes (its hash tag's content when it has one). */
export function clusterSlot(name: Name): number {
  return untaggedSlot(Buffer.from(hashTagOf(name) ?? name));
}

/**
 * A multi-resource lock on a Redis Cluster node whose resources hash to different slots: one script
 * cannot touch them (Redis would answer CROSSSLOT on every node), so it is refused before any call.
 */
export class CrossSlotError extends TypeError {
  override name = "CrossSlotError";
}

/** Throws CrossSlotError unless every resource hashes to the first one's cluster slot. */
export function assertOneSlot(resources: readonly string[]): void {
  const first = resources[0]!;
  const slot = clusterSlot(first);
  const other = resources.find((resource) => clusterSlot(resource) !== slot);
  if (other === undefined) return;
  throw new CrossSlotError(
    `"${first}" (slot ${slot}) and "${other}" (slot ${clusterSlot(other)}) hash to different Redis Cluster slots: one lock on several resources on a cluster node needs them in one slot. Give them a common hash tag, e.g. "{order-42}:payment" and "{order-42}:stock".`,
  );
}

const slotTags = new Map<number, string>();

/** The shortest base-36 numeral that Redis Cluster hashes to `slot` (some thousands of CRCs, cached). */
function slotTag(slot: number): string {
  let tag = slotTags.get(slot);
  for (let candidate = 0; tag === undefined; candidate += 1) {
    const numeral = candidate.toString(36);
    if (untaggedSlot(Buffer.from(numeral)) === slot) tag = numeral;
  }
  slotTags.set(slot, tag);
  return tag;
}

/**
 * `{<tag>}` that Redis Cluster hashes to `name`'s slot: appended to a key of one's own (after a
 * prefix without `{`), it puts that key in the slot of `name`, whatever `name` looks like.
 */
export const slotHashTag = (name: Name): string => `{${slotTag(clusterSlot(name))}}`;

/** The auxiliary key of one kind for a resource, in the resource's cluster slot (see above). */
function auxiliaryKey<N extends Name>(kind: AuxiliaryKind, resource: N): N {
  const text: string | undefined = typeof resource === "string" ? resource : undefined;
  // latin1 maps each byte to one char, so a binary name keeps its exact bytes through the string.
  const name = text ?? (resource as Buffer).toString("latin1");
  let key: string;
  if (hasHashTag(name)) key = `${RESERVED_PREFIX}${kind}:${name}`;
  // "" has no slot of its own to wrap ("{}" is no tag): it takes the third form.
  else if (name !== "" && !name.includes("}")) key = `${RESERVED_PREFIX}{${name}}:${kind}`;
  else {
    const bytes = text === undefined ? (resource as Buffer) : Buffer.from(text);
    key = `${RESERVED_PREFIX}{${slotTag(untaggedSlot(bytes))}}:${kind}:${name}`;
  }
  return (text === undefined ? Buffer.from(key, "latin1") : key) as N;
}

/** A resource's fencing counter: the highest token recorded for it on this node. */
export const fenceKey = <N extends Name>(resource: N): N => auxiliaryKey("fence", resource);

/** The contenders waiting for a resource: a sorted set of JSON members scored by their expiry (epoch ms). */
export const waitersKey = <N extends Name>(resource: N): N => auxiliaryKey("waiters", resource);

/**
 * The console's revoke marker for a resource (JSON naming the lock's value, who asks and by when),
 * read by the holder's library on a notice and by every extension of a session's lock.
 */
export const revokeKey = <N extends Name>(resource: N): N => auxiliaryKey("revoke", resource);

/**
 * A holder session's heartbeat key, `redlock:session:{<id>}`: per process, not per resource, so it
 * lives in the slot of its id (whichever shard owns it) and is the one auxiliary key outside its
 * resource's slot. No multi-key script ever touches it: one `SET` writes it, `GET`/`PTTL` read it.
 */
export const sessionKey = (sessionId: string): string => `${RESERVED_PREFIX}session:{${sessionId}}`;

/** The channel on which the console tells a session about its locks: `redlock:notice:{<id>}`. */
export const noticeChannel = (sessionId: string): string =>
  `${RESERVED_PREFIX}notice:{${sessionId}}`;

/** 1.x's fence counter name (`redlock:fence:<resource>`), still raised on single servers for one major version. */
export const legacyFenceKey = (resource: string) => `${RESERVED_PREFIX}fence:${resource}`;

/**
 * 1.x's owner entry (`redlock:owner:<resource>`, a hash {value, labels, acquiredAt, extensions}),
 * read for one major version so that locks taken by 1.x still show their owner during an upgrade.
 */
export const legacyOwnerKey = <N extends Name>(resource: N): N =>
  (typeof resource === "string"
    ? `${RESERVED_PREFIX}owner:${resource}`
    : Buffer.concat([Buffer.from(`${RESERVED_PREFIX}owner:`), resource])) as N;

/**
 * The resource and kind an auxiliary key belongs to (any of the three forms, and 1.x's names), or
 * undefined for a key that is not one. A Buffer key is read as latin1 and its resource returned so.
 */
export function auxiliaryKeyOf(key: string): { kind: AuxiliaryKind; resource: string } | undefined {
  if (!key.startsWith(RESERVED_PREFIX)) return undefined;
  const rest = key.slice(RESERVED_PREFIX.length);
  if (rest.startsWith("{")) {
    const close = rest.indexOf("}");
    if (close === -1) return undefined;
    const tail = rest.slice(close + 1);
    for (const kind of KINDS) {
      if (tail === `:${kind}`) return { kind, resource: rest.slice(1, close) };
      if (tail.startsWith(`:${kind}:`)) return { kind, resource: tail.slice(kind.length + 2) };
    }
    return undefined;
  }
  for (const kind of KINDS)
    if (rest.startsWith(`${kind}:`)) return { kind, resource: rest.slice(kind.length + 1) };
  return undefined;
}
