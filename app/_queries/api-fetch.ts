import { observeServerTime } from "@/hooks/server-clock";
import { ApiError, isErrorCode, type ApiRequest, type ErrorBody } from "@/lib/api";

export { ApiError, isApiError } from "@/lib/api";

async function toApiError(request: ApiRequest, response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as Partial<ErrorBody> | null;
  const error = body?.error;
  return new ApiError(
    isErrorCode(error?.code) ? error.code : "http_error",
    error?.message ?? `The console answered ${response.status} ${response.statusText}.`,
    { details: error?.details, status: response.status, request },
  );
}

/**
 * GET (or POST/DELETE with a JSON body) against the console's own API; throws ApiError, whose
 * message ends with the request and its status: "… (POST /api/locks/force-release: 409)".
 */
export async function apiFetch<T>(
  path: string,
  init: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const request: ApiRequest = { method: init.method ?? "GET", path };
  let response: Response;
  try {
    response = await fetch(path, {
      method: request.method,
      signal: init.signal,
      credentials: "same-origin",
      cache: "no-store",
      headers:
        init.body === undefined
          ? { accept: "application/json" }
          : { accept: "application/json", "content-type": "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new ApiError(
      "network",
      "The console server did not answer: check that it is running and reachable.",
      { status: 0, request },
    );
  }
  if (!response.ok) throw await toApiError(request, response);
  if (response.status === 204) return undefined as T;
  const body = (await response.json()) as T & { serverTime?: unknown };
  if (typeof body.serverTime === "number") observeServerTime(body.serverTime);
  return body;
}
