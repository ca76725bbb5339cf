/**
 * The HTTP API's shapes: zod schemas and their inferred types, shared by route handlers and the UI.
 * This is the one import path of every consumer, browser and server alike (every file here is
 * browser-safe: zod and the library's protocol subpath only). It lists the public surface by name:
 * what a file exports only for its siblings (the schemas composed into others) stays inside.
 */
export { ApiError, ERROR_STATUS, isApiError, isErrorCode } from "./error-codes";
export type { ApiErrorOptions, ApiRequest, ClientErrorCode, ErrorCode } from "./error-codes";
export {
  MAX_BODY_BYTES,
  MAX_RESOURCE_BASE64_LENGTH,
  MAX_RESOURCE_BYTES,
  MAX_TTL_MS,
  MIN_TTL_MS,
  RESERVED_PREFIX,
} from "./common";
export type { Attempt, ErrorBody } from "./common";
export { keyParamFor } from "./resource-key";
export { lackingWords, marginWords, restartFix } from "./lock-margin";
export type {
  ClusterInfo,
  ClusterShard,
  DownCauseKind,
  HealthResponse,
  LockMargin,
  NodeDown,
  NodeInfo,
  NodeRestart,
  NodesResponse,
  NodeStatus,
  NodeWarning,
  NodeWarningCategory,
  NodeWarningCode,
  WriteRate,
} from "./nodes";
export type {
  EventReads,
  IndexMode,
  KeyShapeFigures,
  ListingProgress,
  ListingReason,
  LockMatchSuggestion,
  NodeIndex,
} from "./node-index";
export { keyspaceEventsRequestSchema, nodePathIdSchema } from "./keyspace-events";
export type { KeyspaceEventsRequest, KeyspaceEventsResponse } from "./keyspace-events";
export { loginRequestSchema } from "./session";
export type { LoginRequest, SessionResponse } from "./session";
export {
  revokeSignInsRequestSchema,
  revokeSignInsResponseSchema,
  SIGN_IN_FAILURES,
  signOutResponseSchema,
} from "./sign-in";
export type {
  RevokeSignInsRequest,
  RevokeSignInsResponse,
  SignInFailure,
  SignOutResponse,
} from "./sign-in";
export { holderSessionIdSchema } from "./holder-session";
export type { HolderSession, HolderSessionState } from "./holder-session";
export {
  holderSessionReleaseRequestSchema,
  MAX_SESSION_LOCKS_LISTED,
  MAX_SESSION_RELEASE_LOCKS,
  MAX_SESSION_WAITS_LISTED,
  MAX_SESSIONS_LISTED,
} from "./holder-sessions";
export type {
  HolderSessionLock,
  HolderSessionReleaseLock,
  HolderSessionReleaseRequest,
  HolderSessionReleaseResponse,
  HolderSessionResponse,
  HolderSessionsCoverage,
  HolderSessionsResponse,
  HolderSessionSummary,
  HolderSessionWait,
} from "./holder-sessions";
export {
  expiresAtMs,
  LABEL_VALUE_MAX_CHARS,
  LABELS_MAX,
  LIST_VALUE_MAX_CHARS,
  lockFormatSchema,
  locksQuerySchema,
  MAX_PAGE_LIMIT,
  ownerExtension,
} from "./locks";
export type {
  Listing,
  LiveLockRow,
  LockCounts,
  LockFlag,
  LockFormat,
  LockOwner,
  LockRow,
  LocksQuery,
  LocksResponse,
  LockState,
  NodeHolder,
  OwnerInfo,
  ReadWriteSummary,
  SemaphoreKind,
  SemaphoreSummary,
  WaitersSummary,
} from "./locks";
export { labelsMatch, lockSortSchema, parseOwnerFilter, sortOrderSchema } from "./lock-sort";
export type { LockSort, OwnerLabelFilter, SortOrder } from "./lock-sort";
export { MAX_WAITERS_LISTED } from "./lock-detail";
export type {
  GroupMember,
  LockDetail,
  LockGroupDetail,
  LockResponse,
  NodeHolderDetail,
  Waiter,
} from "./lock-detail";
export {
  acquireRequestSchema,
  DEFAULT_REVOKE_DEADLINE_MS,
  extendRequestSchema,
  forceReleaseRequestSchema,
  MAX_REASON_LENGTH,
  MAX_REVOKE_DEADLINE_MS,
  MIN_REASON_LENGTH,
  MIN_REVOKE_DEADLINE_MS,
  releaseRequestSchema,
  revokeRequestSchema,
} from "./actions";
export type {
  AcquireRequest,
  ExtendRequest,
  ForceReleaseDisposal,
  ForceReleaseMode,
  ForceReleaseNodeResult,
  ForceReleaseRequest,
  ForceReleaseResponse,
  LockGrant,
  LockGrantResponse,
  NoSessionChoice,
  ReleaseRequest,
  ReleaseResponse,
  RevokeNodeResult,
  RevokeRequest,
  RevokeResponse,
} from "./actions";
export { DEFAULT_DRIFT_FACTOR, reservationMs, unlockRule } from "./unlock-rule";
export type { UnlockCase, UnlockDecision, UnlockFormat } from "./unlock-rule";
export { latencyQuerySchema } from "./latency";
export type {
  LatencyResponse,
  LatencySource,
  NodeLatencySample,
  QuorumLatencySample,
} from "./latency";
export {
  auditActionSchema,
  auditEntrySchema,
  auditQuerySchema,
  auditRefusalSchema,
  auditStreamStateSchema,
  AUDIT_FILL_WARN_PERCENT,
  incidentUrlSchema,
  MAX_ANONYMOUS_AUDIT_SCAN,
  MAX_AUDIT_SCAN,
  MAX_INCIDENT_URL_LENGTH,
} from "./audit";
export type {
  AuditAction,
  AuditEntry,
  AuditPerson,
  AuditQuery,
  AuditRefusal,
  AuditResponse,
  AuditStreamState,
  HolderDid,
} from "./audit";
export {
  EPISODE_MIN_MS,
  eventsQuerySchema,
  isAlarming,
  makeTransition,
  parseEventId,
  transitionFilter,
  transitionKindSchema,
  transitionSchema,
} from "./timeline";
export type {
  EventsQuery,
  EventsResponse,
  ExpiryCause,
  ExpirySessionState,
  HistoryHorizon,
  OverlapReason,
  PossibleOverlap,
  Transition,
  TransitionKind,
} from "./timeline";
export {
  contentionResponseSchema,
  MAX_CHAINS_LISTED,
  MAX_CYCLES_LISTED,
  MAX_SERVICES_CHARTED,
  MAX_TOP_BLOCKERS,
  MAX_WAIT_LOCKS_LISTED,
  MAX_WAITS_LISTED,
  waitsQuerySchema,
  waitsResponseSchema,
} from "./contention";
export type {
  ContentionChain,
  ContentionCycle,
  ContentionParticipant,
  ContentionResponse,
  ContentionWait,
  WaitSeriesPoint,
  WaitsResponse,
} from "./contention";
export {
  createTokenRequestSchema,
  PERSONAL_TOKEN_PREFIX,
  tokenIdSchema,
  tokensQuerySchema,
} from "./tokens";
export type {
  CreateTokenRequest,
  CreateTokenResponse,
  PersonalToken,
  RevokeTokenResponse,
  TokenGrantRequest,
  TokensResponse,
} from "./tokens";
