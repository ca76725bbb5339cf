import { observeServerTime } from "@/hooks/server-clock";
import { ApiError, isErrorCode, type ErrorBody } from "@/lib/api";

export { ApiError, isApiError } from "@/lib/api";

async function toApiError(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as Partial<ErrorBody> | null;
  const error = body?.error;
  return new ApiError(
    isErrorCode(error?.code) ? error.code : "http_error",
    error?.message ?? `The console answered ${response.status} ${response.statusText}.`,
    error?.details,
    undefined,
    response.status,
  );
}

/** GET (or POST/DELETE with a JSON body) against the console's own API; throws ApiError. */
export async function apiFetch<T>(
  path: string,
  init: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method ?? "GET",
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
      undefined,
      undefined,
      0,
    );
  }
  if (!response.ok) throw await toApiError(response);
  if (response.status === 204) return undefined as T;
  const body = (await response.json()) as T & { serverTime?: unknown };
  if (typeof body.serverTime === "number") observeServerTime(body.serverTime);
  return body;
}
