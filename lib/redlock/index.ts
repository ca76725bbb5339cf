export { default } from "./redlock";
export { Lock, type LockManager } from "./lock";
export {
  ExecutionError,
  LockExpiredError,
  LockForceReleasedError,
  LockRevokedError,
  NodeQuarantinedError,
  NodeTimeoutError,
  NodeUnavailableError,
  RedlockError,
  ResourceLockedError,
  ShapeMismatchError,
  isExecutionError,
  isLockExpiredError,
  isLockForceReleasedError,
  isLockRevokedError,
  isRedlockError,
  isResourceLockedError,
  type ConsoleAction,
} from "./errors";
export { defaultSettings, validityMs } from "./settings";
export { Semaphore, permitKey, queueKey, semaphoreKey } from "./semaphore";
export {
  DEFAULT_MAX_READERS,
  ReadWriteLock,
  readerKey,
  rwLockKey,
  writerKey,
  writerWaitingKey,
} from "./read-write-lock";
export { MAX_SLOTS } from "./slots";
export type { SessionInfo } from "./session";
// The wire protocol (also the browser-safe subpath `@redlock-console/redlock/protocol`).
export {
  acquiredAtOfValue,
  decodeHeartbeat,
  decodeNotice,
  decodeRevokeMarker,
  decodeTombstone,
  decodeValue,
  decodeWaiterMember,
  DEFAULT_HEARTBEAT_MS,
  driftMs,
  heartbeatEncoder,
  encodeNotice,
  encodeRevokeMarker,
  encodeTombstone,
  encodeValue,
  encodeWaiterMember,
  isLabels,
  lateAfterMs,
  RESERVED_PREFIX,
  SESSION_ID_PATTERN,
  sessionWindowMs,
  startsAsTombstone,
  startsAsValue,
  TOKEN_PATTERN,
  TOMBSTONE_PREFIX,
  tokenOf,
  tombstonePrefix,
  VALUE_FORMAT_PREFIX,
  type DecodedValue,
  type Heartbeat,
  type Notice,
  type RevokeMarker,
  type Tombstone,
  type TombstoneFields,
  type WaiterMember,
} from "./protocol";
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
  revokeKey,
  sessionKey,
  slotHashTag,
  waitersKey,
  type AuxiliaryKind,
} from "./keys";
export { wasExtended } from "./value";
export { wakeNextWaiter } from "./release";
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
