export { default } from "./redlock";
export { Lock, type LockManager } from "./lock";
export {
  ExecutionError,
  LockForceReleasedError,
  LockRevokedError,
  NodeQuarantinedError,
  NodeTimeoutError,
  NodeUnavailableError,
  RedlockError,
  ResourceLockedError,
  isExecutionError,
  isLockForceReleasedError,
  isLockRevokedError,
  isRedlockError,
  isResourceLockedError,
  type ConsoleAction,
} from "./errors";
export { DEFAULT_HEARTBEAT_MS, defaultSettings, validityMs } from "./settings";
export { lateAfterMs, sessionWindowMs, type SessionInfo } from "./session";
export {
  decodeRevokeMarker,
  decodeTombstone,
  TOMBSTONE_PREFIX,
  tombstonePrefix,
  type RevokeMarker,
  type Tombstone,
} from "./marks";
export type { Notice } from "./notices";
export type { LockLostEvent, LockRevokedEvent } from "./holdings";
export { quorumSize } from "./quorum";
export {
  auxiliaryKeyOf,
  clusterSlot,
  CrossSlotError,
  fenceKey,
  hasHashTag,
  legacyFenceKey,
  legacyOwnerKey,
  noticeChannel,
  RESERVED_PREFIX,
  revokeKey,
  sessionKey,
  slotHashTag,
  waitersKey,
  type AuxiliaryKind,
} from "./keys";
export {
  acquiredAtOfValue,
  decodeValue,
  VALUE_FORMAT_PREFIX,
  wasExtended,
  type DecodedValue,
} from "./value";
export { OWNER_LABELS_MAX_BYTES } from "./owner";
export { INSPECT_MAX_RESOURCES } from "./inspect";
export {
  defineScript,
  type PlainCommand,
  type Script,
  type ScriptArg,
  type ScriptKey,
} from "./script";
export type { CallSettings, SessionSetting, Settings } from "./settings";
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
