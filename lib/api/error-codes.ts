/**
 * Every error code the HTTP API can answer with, and the HTTP status it travels with.
 * The UI switches on `code`; the server maps typed errors to a status through this one table.
 */
export const ERROR_STATUS = {
  /** The body is not valid JSON. */
  invalid_json: 400,
  /** The body, query or path failed validation; the message names each bad field. */
  invalid_request: 400,
  /** A resource name under the reserved `redlock:` prefix (auxiliary keys are never locks). */
  reserved_resource: 400,
  /** No credential, or a wrong one. */
  unauthorized: 401,
  /** The console runs with CONSOLE_READ_ONLY: every state-changing route is refused. */
  read_only: 403,
  /** The request's Origin is not this console's own origin (CSRF defence). */
  cross_origin: 403,
  /**
   * The credential is good but no one grant of it has the role for this action on this lock
   * (auth/policy.ts); the message names what was missing. Nothing was changed.
   */
  forbidden: 403,
  not_found: 404,
  /**
   * A key no pattern of LOCK_MATCH covers: the console reads and shows only the keys it was told
   * are locks (issue 32 row 2), and writes no other (issue 49 rows 3 and 8: every write route).
   */
  outside_lock_match: 404,
  /**
   * Force-release of a key whose value has no lock format on some node (an application's value
   * under LOCK_MATCH), judged by the script that writes: nothing of it was touched. Only an admin's
   * explicit `notALock: true` acts on it.
   */
  not_a_lock: 409,
  method_not_allowed: 405,
  /** Acquire: the resource is held by someone else (or no majority could be reached in time). */
  resource_locked: 409,
  /** Extend: the lock is no longer held on a majority with this value. */
  lock_not_held: 409,
  /** Force-release, revoke: a node holds another value than the one the operator saw. */
  value_changed: 409,
  /**
   * The playground's extend or release of a value this console did not acquire (another holder's,
   * pasted from a lock page): only force-release takes another holder's lock.
   */
  not_console_lock: 409,
  /**
   * Force-release of a Redisson hash lock without `disposal: "delete-now"`: a hash cannot hold a
   * string tombstone, so it can only be deleted, which only an explicit choice does.
   */
  hash_lock_needs_delete_now: 409,
  /**
   * Force-release, revoke: the key is of a format the console only reads (redis-semaphore's sorted
   * set): nothing was written. Its holders are released by their own application.
   */
  read_only_format: 409,
  /** Revoke: the holder's value carries no session id, so nobody can ask it: it can only be forced. */
  no_session: 409,
  /** Body larger than the limit (see MAX_BODY_BYTES). */
  payload_too_large: 413,
  /** A state-changing request whose Content-Type is not application/json. */
  unsupported_media_type: 415,
  /** Too many login attempts from this client; retry after the time in the message. */
  rate_limited: 429,
  /** Fewer than a majority of nodes answered, so the action cannot have a defined outcome. */
  quorum_unavailable: 503,
  /** A bug: logged server-side with its stack, never for user input. */
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_STATUS, value);
}

/** Codes the browser adds for answers that never reached the API: no answer, or a non-JSON one. */
export type ClientErrorCode = ErrorCode | "network" | "http_error";

/** The request an error answered, as the browser sent it. */
export interface ApiRequest {
  readonly method: string;
  /** The console's own path, with its query if any (`/api/locks/force-release`). */
  readonly path: string;
}

export interface ApiErrorOptions {
  /** Specifics beside the message, sent as the body's `error.details` (per-node outcomes…). */
  readonly details?: unknown;
  /** Headers of the error response (Retry-After). */
  readonly headers?: Record<string, string>;
  /** What the browser actually received (0: no answer). @default the code's HTTP status */
  readonly status?: number;
  /** The request that failed (the browser's side): the message names it, as ky's HTTPError does. */
  readonly request?: ApiRequest;
}

/**
 * An error of the console's API, on both sides of the wire: thrown by server code (and turned into a
 * response by `toResponse`), and rebuilt by the browser from an error response, where its message
 * ends with the request and what came back: "… (POST /api/locks/force-release: 409)".
 */
export class ApiError extends Error {
  override name = "ApiError";
  readonly status: number;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;
  readonly request?: ApiRequest;
  constructor(
    readonly code: ClientErrorCode,
    message: string,
    options: ApiErrorOptions = {},
  ) {
    const status = options.status ?? (isErrorCode(code) ? ERROR_STATUS[code] : 0);
    const { request } = options;
    super(
      request === undefined
        ? message
        : `${message} (${request.method} ${request.path}: ${status === 0 ? "no answer" : status})`,
    );
    this.status = status;
    this.details = options.details;
    this.headers = options.headers;
    this.request = request;
  }
}

/**
 * An ApiError of this module or of another copy of it: instrumentation.ts builds the console in
 * its own bundle, so what the console's guard throws is not an instance of the routes' ApiError.
 */
export function isApiError(error: unknown): error is ApiError {
  if (error instanceof ApiError) return true;
  if (!(error instanceof Error) || error.name !== "ApiError" || !("code" in error)) return false;
  return isErrorCode(error.code);
}
