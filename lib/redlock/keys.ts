/**
 * The keys a lock uses on each node besides its resources. Scripts are passed every key they touch
 * as KEYS (Redis's rule for scripts), so these are computed here and handed to them.
 */
export const FENCE_PREFIX = "redlock:fence:";
/** A resource's fencing counter: the highest token recorded for it on this node. */
export const fenceKey = (resource: string) => FENCE_PREFIX + resource;

export const OWNER_PREFIX = "redlock:owner:";
/** The owner entry of a resource: a hash (value, labels, acquiredAt, extensions) with the lock's TTL. */
export const ownerKey = (resource: string) => OWNER_PREFIX + resource;
export const WAITERS_PREFIX = "redlock:waiters:";
/** The contenders waiting for a resource: a sorted set of JSON members scored by their expiry (epoch ms). */
export const waitersKey = (resource: string) => WAITERS_PREFIX + resource;
