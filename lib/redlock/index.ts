export { default } from "./redlock";
export { Lock, type LockManager } from "./lock";
export {
  ExecutionError,
  NodeQuarantinedError,
  NodeTimeoutError,
  NodeUnavailableError,
  RedlockError,
  ResourceLockedError,
  isExecutionError,
  isRedlockError,
  isResourceLockedError,
} from "./errors";
export { defaultSettings, validityMs } from "./settings";
export { quorumSize } from "./quorum";
export {
  auxiliaryKeyOf,
  clusterSlot,
  CrossSlotError,
  fenceKey,
  hasHashTag,
  legacyFenceKey,
  legacyOwnerKey,
  RESERVED_PREFIX,
  revokeKey,
  slotHashTag,
  waitersKey,
  type AuxiliaryKind,
} from "./keys";
export { decodeValue, VALUE_FORMAT_PREFIX, wasExtended } from "./value";
export { OWNER_LABELS_MAX_BYTES } from "./owner";
export { INSPECT_MAX_RESOURCES } from "./inspect";
export {
  defineScript,
  type PlainCommand,
  type Script,
  type ScriptArg,
  type ScriptKey,
} from "./script";
export type { CallSettings, Settings } from "./settings";
export type {
  Client,
  IoredisClient,
  NodeRedisClient,
  NodeRedisClusterClient,
  RedisDriver,
  Subscriber,
  ExecutionResult,
  ExecutionStats,
  NodeInspection,
  NodeState,
  NodeVote,
  Operation,
  OperationEvent,
  OwnerInfo,
  RedlockAbortSignal,
  ReleaseCounts,
  ReleaseResult,
  ResourceInspection,
  WaiterInfo,
} from "./types";
