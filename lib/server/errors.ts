import "server-only";
/**
 * Typed errors thrown anywhere in the console's server code, and the one place that turns any
 * error into an HTTP response. Unknown errors become a logged 500 whose body reveals nothing.
 */
import { ERROR_STATUS, isErrorCode, type ErrorBody, type ErrorCode } from "@/lib/api";
import { logger } from "./logger";

export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
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

const NO_STORE = { "cache-control": "no-store" };

export function jsonResponse(
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return Response.json(body, { status, headers: { ...NO_STORE, ...headers } });
}

function errorResponse(
  code: ErrorCode,
  message: string,
  details?: unknown,
  headers?: Record<string, string>,
): Response {
  const body: ErrorBody = {
    error: { code, message, ...(details === undefined ? {} : { details }) },
  };
  return jsonResponse(body, ERROR_STATUS[code], headers);
}

/** Maps any thrown value to a response: ApiError keeps its code; anything else is a 500. */
export function toResponse(error: unknown): Response {
  if (isApiError(error))
    return errorResponse(error.code, error.message, error.details, error.headers);
  logger.error({ err: error }, "unhandled error in a route handler");
  return errorResponse("internal", "Internal error; the server log has the details.");
}
