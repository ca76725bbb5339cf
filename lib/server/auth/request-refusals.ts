import "server-only";
/**
 * Refused requests into the refusal log (audit/refusal-log.ts): what the route wrapper learned of a
 * request before it was refused (who, from the guard; which resources, from the route), kept per
 * Request object so nothing is passed down, and the Refusal built from it. A wrong credential is
 * recorded by the credential check itself (credential-failures.ts) and marked, so the wrapper does
 * not count it twice.
 */
import { ERROR_STATUS, isApiError, isErrorCode, type ApiError } from "@/lib/api";
import type { Refusal } from "../audit/refusal-log";
import { actorFields } from "./actor-fields";
import { clientIp, userAgent } from "./client-info";
import type { Principal } from "./identity";

interface RequestNotes {
  principal?: Principal;
  resources?: string[];
  recorded?: boolean;
}

const notes = new WeakMap<Request, RequestNotes>();
const notesOf = (request: Request): RequestNotes => {
  let known = notes.get(request);
  if (!known) notes.set(request, (known = {}));
  return known;
};

/** The guard resolved who is asking. */
export const notePrincipal = (request: Request, principal: Principal) => {
  notesOf(request).principal = principal;
};
/** The route parsed which resources the request is about (for its refusal's `resources`). */
export const noteResources = (request: Request, resources: readonly string[]) => {
  notesOf(request).resources = resources.slice(0, 16).map((resource) => resource.slice(0, 512));
};
/** The refusal is already recorded (a wrong credential): the wrapper leaves it. */
export const noteRecorded = (request: Request) => {
  notesOf(request).recorded = true;
};

/**
 * Refusals the log keeps: malformed or unknown (400/404: a token route's duplicate name, a guessed
 * token id), not allowed (401/403), conflicting (409) and throttled (429). None writes anything.
 */
const REFUSED_STATUSES = new Set([400, 401, 403, 404, 409, 429]);

/** The error is a refusal the log keeps (nothing was written), not a failure of the nodes. */
export const isRefusal = (error: ApiError): boolean =>
  isErrorCode(error.code) && REFUSED_STATUSES.has(ERROR_STATUS[error.code]);
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The refusal a state-changing request's error amounts to, or null: not a refusal, a read, or
 * recorded already.
 */
export function refusalOf(request: Request, error: unknown, trustProxy: boolean): Refusal | null {
  if (!STATE_CHANGING.has(request.method) || !isApiError(error) || !isErrorCode(error.code))
    return null;
  const status = ERROR_STATUS[error.code];
  const known = notes.get(request);
  if (!REFUSED_STATUSES.has(status) || known?.recorded) return null;
  const { actor, person, credential, tokenName } = actorFields(known?.principal ?? null, "viewer");
  return {
    action: `${request.method} ${new URL(request.url).pathname}`.slice(0, 512),
    code: error.code,
    status,
    actor,
    person,
    credential,
    tokenName,
    clientIp: clientIp(request, trustProxy),
    userAgent: userAgent(request),
    resources: known?.resources ?? [],
    detail: error.message.slice(0, 512),
  };
}
