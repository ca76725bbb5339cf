import "server-only";
/** The holder session id in `/api/sessions/{id}[/…]`, checked (400 otherwise). */
import { holderSessionIdSchema } from "@/lib/api";
import { ApiError } from "../errors";

const PREFIX = "/api/sessions/";

export function sessionIdFromPath(request: Request): string {
  const { pathname } = new URL(request.url);
  const start = pathname.indexOf(PREFIX);
  const segment = start === -1 ? "" : (pathname.slice(start + PREFIX.length).split("/")[0] ?? "");
  const parsed = holderSessionIdSchema.safeParse(segment);
  if (!parsed.success)
    throw new ApiError(
      "invalid_request",
      "Invalid path: session id: must be 32 lowercase hex characters",
    );
  return parsed.data;
}
