/**
 * The keyspace notifications the live index needs (`notify-keyspace-events`): K, the per-key channel
 * the console subscribes to by pattern, and the event classes a lock of every recognised format can go
 * through — g (del, expire/pexpire, rename_from/to, …), $ (set, setex…: string locks), h (hset, hdel,
 * hincrby: Redisson hashes), z (zadd, zrem: the library's waiters, redis-semaphore's holders),
 * x (expired), e (evicted).
 * `A` stands for "g$lshzxetd".
 */
export const NEEDED_EVENT_FLAGS = "Kg$hzxe";

const CLASSES_IN_A = "g$lshzxetd";

/** The needed flags that `flags` (the node's notify-keyspace-events) lacks; empty when it has all. */
export function missingEventFlags(flags: string): string[] {
  return [...NEEDED_EVENT_FLAGS].filter(
    (flag) => !flags.includes(flag) && !(flags.includes("A") && CLASSES_IN_A.includes(flag)),
  );
}
