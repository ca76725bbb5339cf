import type { OwnerInfo } from "./types";

// The value's format (encodeValue beside decodeValue) is part of the wire protocol: protocol.ts.
export {
  acquiredAtOfValue,
  decodeValue,
  encodeValue,
  VALUE_FORMAT_PREFIX,
  type DecodedValue,
} from "./protocol";

/**
 * Whether the holder has extended its lock, as far as anyone reading the nodes can tell: a 1.x owner
 * entry counted extensions; a 2.x value only shows it once the lock is held longer than its first TTL.
 */
export const wasExtended = (owner: OwnerInfo, nowMs: number): boolean =>
  owner.extensions !== undefined
    ? owner.extensions > 0
    : owner.ttlMs !== undefined && nowMs - owner.acquiredAt > owner.ttlMs;
