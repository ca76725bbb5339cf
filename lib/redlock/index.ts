export { default } from "./redlock";
export { Lock } from "./lock";
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
export { FENCE_PREFIX, fenceKey } from "./lua";
export type { CallSettings, Settings } from "./settings";
export type {
  Client,
  ExecutionResult,
  ExecutionStats,
  NodeState,
  NodeVote,
  Operation,
  OperationEvent,
  RedlockAbortSignal,
  ReleaseCounts,
  ReleaseResult,
} from "./types";
