import Link from "next/link";
import type { ClientErrorCode } from "@/lib/api";

/**
 * What an operator should read for each API error code; the server's message adds the specifics.
 * Keyed by the shared code union, so a new code fails the typecheck until it is explained here.
 */
const EXPLANATIONS: Record<ClientErrorCode, string> = {
  network:
    "The console server did not answer. Check that it is running and that this machine can reach it.",
  unauthorized: "This needs a sign-in. Sign in first (or use the break-glass admin token).",
  read_only: "This console runs read-only (CONSOLE_READ_ONLY): it refuses every change to locks.",
  cross_origin: "The request did not come from this console's own page, so it was refused.",
  forbidden:
    "Your role does not cover this action on this lock, so nothing was changed. Ask for a role that covers it (CONSOLE_RBAC).",
  resource_locked:
    "Another holder owns at least one of these resources, or fewer than a majority of nodes agreed in time. Wait until its validity ends, or pick another resource.",
  lock_not_held:
    "This lock is no longer held on a majority of nodes with this value: it expired, was released, or was force-released. Acquire it again.",
  value_changed:
    "The lock changed since you looked at it: a node now holds another value. Nothing was deleted.",
  not_console_lock:
    "The playground extends and releases only the locks this console acquired. To take another holder's lock, use Force release on its lock page: it reserves the lock until its holder lets go.",
  no_session:
    "This holder has no session (another library, or session: false): nobody can ask it to let go. It can only be force-released.",
  hash_lock_needs_delete_now:
    "A Redisson hash lock cannot be reserved by a tombstone: it can only be deleted now, which may make two holders. Choose delete-now to do so.",
  read_only_format:
    "The console only reads this lock's format (redis-semaphore): it cannot release or revoke its holders. Nothing was changed; release them from the application that holds them.",
  quorum_unavailable:
    "Fewer than a majority of nodes answered, so the outcome cannot be known. Check the node strip for down nodes.",
  rate_limited: "Too many sign-in attempts from this browser. Wait a moment before trying again.",
  reserved_resource:
    'Names under the reserved prefix "redlock:" are the library\'s own keys, never locks.',
  invalid_request: "Some of the values entered are not accepted.",
  invalid_json: "The request was malformed.",
  payload_too_large: "The request is too large.",
  not_found: "Nothing was found there.",
  outside_lock_match:
    "This key is outside LOCK_MATCH: the console reads, shows and writes only the keys it was told are locks.",
  not_a_lock:
    "This key's value has no lock format (it may be an application's data), so it was left exactly as it is.",
  method_not_allowed: "This address does not accept that kind of request.",
  unsupported_media_type: "The request must be sent as JSON (Content-Type: application/json).",
  http_error: "The console answered with an unexpected error.",
  internal: "The console hit an internal error. Its log has the details.",
};

export interface ErrorLike {
  code?: ClientErrorCode;
  message: string;
}

function asErrorLike(error: unknown): ErrorLike {
  if (error && typeof error === "object" && "message" in error) return error as ErrorLike;
  return { message: String(error) };
}

/** An error as an operator reads it: what it means, the server's specifics, and what to do. */
export function ErrorNotice({ error, title }: { error: unknown; title?: string }) {
  const { code, message } = asErrorLike(error);
  const explanation = code ? EXPLANATIONS[code] : undefined;
  return (
    <div role="alert" className="notice notice-error">
      {title && <strong>{title}: </strong>}
      {explanation ?? message}
      {explanation && message && explanation !== message && (
        <div className="error-detail">{message}</div>
      )}
      {code === "unauthorized" && (
        <div>
          <Link href="/login">Sign in</Link>
        </div>
      )}
    </div>
  );
}
