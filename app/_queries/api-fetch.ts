import { observeServerTime } from "@/components/clock/server-clock";
import type { ErrorBody } from "@/lib/api/common";

/** A non-2xx answer of the console's API, or a network failure (status 0). */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

async function toApiError(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as Partial<ErrorBody> | null;
  const error = body?.error;
  return new ApiError(
    response.status,
    error?.code ?? "http_error",
    error?.message ?? `The console answered ${response.status} ${response.statusText}.`,
    error?.details,
  );
}

/** GET (or POST/DELETE with a JSON body) against the console's own API; throws ApiError. */
export async function apiFetch<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method ?? "GET",
      signal: init.signal,
      credentials: "same-origin",
      cache: "no-store",
      headers: init.body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new ApiError(0, "network", "The console server did not answer: check that it is running and reachable.");
  }
  if (!response.ok) throw await toApiError(response);
  if (response.status === 204) return undefined as T;
  const body = (await response.json()) as T & { serverTime?: unknown };
  if (typeof body.serverTime === "number") observeServerTime(body.serverTime);
  return body;
}
