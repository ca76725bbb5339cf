/**
 * A key's shape and a keyspace event's class: what the console learns from, with events on, which
 * changed keys may be locks (shape-table.ts). A shape is the key's segments with id-like parts
 * replaced by `*`: `orders:42` → `orders:*`, `orders:42:view` → `orders:*:view`. Prefixes alone
 * cannot tell those two apart; shapes can, so a lock beside cache entries of its own prefix stays
 * read while the cache entries stop being read.
 */

/** Characters that separate a key's segments; each is kept in the shape as it is. */
const SEPARATORS = /([:/.|#_-])/;
/** A segment this long is an id or a token (base64, a slug), whatever its characters. */
const ID_MIN_LENGTH = 16;
/** Segments kept at most; the rest of a longer key is one `*`. */
const MAX_SEGMENTS = 12;
/** A shape longer than this is cut, and ends in `*`. */
const MAX_SHAPE_LENGTH = 120;
const UUID = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g;
/** Bytes a literal segment may hold: printable ASCII that is no glob character. */
const LITERAL = /^[\x20-\x29\x2b-\x3e\x40-\x5a\x5e-\x7e]*$/;

/** True when a segment names one thing among many (an id) rather than a kind of key. */
const isIdLike = (segment: string) =>
  segment.length >= ID_MIN_LENGTH || /\d/.test(segment) || !LITERAL.test(segment);

/**
 * The shape of a key name (latin1 of its bytes): its segments, id-like ones (with a digit, 16
 * characters or more, or bytes outside printable ASCII) as `*`. A shape is also a Redis glob that
 * matches every key of that shape.
 */
export function keyShape(name: string): string {
  const parts = name.replace(UUID, "0").split(SEPARATORS);
  let shape = "";
  // parts alternate segment, separator, segment…: a segment at every even index.
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index]!;
    if (index / 2 >= MAX_SEGMENTS) return `${shape}*`;
    if (index % 2 === 1) shape += part;
    else if (part !== "") shape += isIdLike(part) ? "*" : part;
  }
  return shape.length > MAX_SHAPE_LENGTH ? `${shape.slice(0, MAX_SHAPE_LENGTH - 1)}*` : shape;
}

/**
 * Keyspace events after which a key that held no lock still holds none, whatever it held before:
 * removals (the key is gone), integer arithmetic (at most 20 characters: shorter than any
 * recognised token), and list, set, sorted-set and stream writes (no lock is of those types but
 * redis-semaphore's sorted set, whose scripts give it its TTL after each write: that `expire` is
 * read).
 * Every other event (`set`, `setrange`, `append`, `incrbyfloat`, the hash commands, `expire`,
 * `rename_to`, `restore`, and any event this list does not know) may leave a lock and is read.
 */
const CANNOT_CREATE_LOCK: ReadonlySet<string> = new Set([
  ...["del", "expired", "evicted", "rename_from", "move_from", "persist", "incrby"],
  ...["lpush", "rpush", "lpop", "rpop", "linsert", "lset", "lrem", "ltrim", "lmove", "blmove"],
  ...["sadd", "srem", "spop", "sinterstore", "sunionstore", "sdiffstore", "smove"],
  ...["zadd", "zincr", "zrem", "zremrangebyscore", "zremrangebyrank", "zremrangebylex"],
  ...["zpopmin", "zpopmax", "zinterstore", "zunionstore", "zdiffstore", "zrangestore"],
  ...["xadd", "xtrim", "xdel", "xsetid", "xgroup-create", "xgroup-destroy", "xclaim"],
]);

/** Whether `event` can leave a lock of a recognised format under a key that held none before it. */
export const eventMayCreateLock = (event: string): boolean => !CANNOT_CREATE_LOCK.has(event);

/**
 * Keyspace events that leave a key with an expiry it may not have had: `expire` (SET with EX/PX,
 * SETEX, EXPIRE, PEXPIRE, GETEX…; also a lock script's SET … PX) and the moves that carry a key's
 * TTL with it. Every lock has an expiry, so a lock taken under any name fires one of these.
 */
const MAY_SET_EXPIRY: ReadonlySet<string> = new Set([
  ...["expire", "rename_to", "restore", "copy_to", "move_to"],
]);

export const eventMaySetExpiry = (event: string): boolean => MAY_SET_EXPIRY.has(event);
