import "server-only";
/**
 * Typed errors thrown anywhere in the console's server code, and the one place that turns any
 * error into an HTTP response. Unknown errors become a logged 500 whose body reveals nothing.
 */
import { ERROR_STATUS, isApiError, isErrorCode, type ErrorBody, type ErrorCode } from "@/lib/api";

export { ApiError, isApiError } from "@/lib/api";
import { logger } from "./logger";

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
  if (isApiError(error) && isErrorCode(error.code))
    return errorResponse(error.code, error.message, error.details, error.headers);
  logger.error({ err: error }, "unhandled error in a route handler");
  return errorResponse("internal", "Internal error; the server log has the details.");
}
