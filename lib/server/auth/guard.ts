import "server-only";
/**
 * Who may do what. Reads: open when CONSOLE_PUBLIC_READ, else a credential with a role; each read is
 * charged to the read budget of who asks (claim.ts), known before any node is read. State-changing
 * requests: not in read-only mode, a credential whose grants give the action's role (policy.ts; the
 * action then checks the lock's scope before it writes), and a same-origin request (CSRF defence: a
 * browser always sends Origin on POST/DELETE, and a bearer token cannot be attached by a foreign
 * page). A person may arrive through a trusted authenticating proxy (proxy-identity.ts).
 * Wrong credentials are throttled per client; logouts are checked against the nodes (revocations.ts).
 */
import type { ConsoleConfig } from "../config";
import { ApiError } from "../errors";
import { assertConsoleAction, assertRole } from "./authorize";
import { createClaims, type ClaimDeps } from "./claim";
import type { Principal } from "./identity";
import { ACTIONS, type Action } from "./policy";
import { notePrincipal } from "./request-refusals";
import type { ReadLimiter } from "./rate-limit";

export interface Guard {
  /**
   * The request's credential; null without one (or with an expired or logged-out cookie).
   * Throws 401 for a wrong bearer token, 429 while the client is blocked for wrong credentials.
   */
  principalOf(request: Request): Promise<Principal | null>;
  /**
   * Also takes one request from the read budget of who asks (429 when spent): a person, a token,
   * the break-glass token from this client address, or anonymous requests from it (claim.ts).
   */
  requireRead(request: Request): Promise<Principal | null>;
  /**
   * A state-changing request: not read-only, a credential, same-origin, and a grant with the
   * action's role (for a console-wide action, over every lock). 401/403 otherwise.
   */
  requireAction(request: Request, action: Action): Promise<Principal>;
  /**
   * A state-changing request whose route decides the rest itself (a person's own tokens: within
   * their grants, theirs or an admin's): not read-only, a credential, same-origin.
   */
  requireCredential(request: Request): Promise<Principal>;
  /** Same-origin check for any state-changing request (login included). */
  requireSameOrigin(request: Request, principal: Principal | null): void;
}

function ownOrigins(request: Request, trustProxy: boolean): Set<string> {
  const url = new URL(request.url);
  const origins = new Set([url.origin]);
  const host = request.headers.get("host");
  if (host) origins.add(`${url.protocol}//${host}`);
  const forwardedHost = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  if (trustProxy && forwardedHost) {
    const proto =
      request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() ?? url.protocol.slice(0, -1);
    origins.add(`${proto}://${forwardedHost}`);
  }
  return origins;
}

export function assertSameOrigin(
  request: Request,
  principal: Principal | null,
  config: ConsoleConfig,
): void {
  if (request.headers.get("sec-fetch-site") === "cross-site") {
    throw new ApiError("cross_origin", "Cross-site requests are refused.");
  }
  const origin = request.headers.get("origin");
  if (origin === null) {
    // Scripts (curl) send no Origin; a page cannot make a browser attach a bearer token.
    if (principal?.carrier === "bearer") return;
    throw new ApiError(
      "cross_origin",
      "A state-changing request from a browser must carry a same-origin Origin header.",
    );
  }
  if (
    !ownOrigins(request, config.trustProxy).has(origin) &&
    !config.allowedOrigins.includes(origin)
  ) {
    throw new ApiError("cross_origin", "The request's Origin is not this console's origin.");
  }
}

export interface GuardDeps extends ClaimDeps {
  readonly reads: ReadLimiter;
}

export function createGuard(config: ConsoleConfig, deps: GuardDeps): Guard {
  const claimOf = createClaims(config, deps);
  /** Who is asking, also noted for the request's refusal, should it be refused later. */
  async function principalOf(request: Request): Promise<Principal | null> {
    const principal = await claimOf(request).confirm();
    if (principal) notePrincipal(request, principal);
    return principal;
  }
  async function requireAction(request: Request, action: Action): Promise<Principal> {
    const principal = await requireCredential(request);
    if (ACTIONS[action].on === "console") assertConsoleAction(principal, action);
    else assertRole(principal, action);
    return principal;
  }
  /** A state-changing request's credential: not read-only, someone, and from this origin. */
  async function requireCredential(request: Request): Promise<Principal> {
    if (config.readOnly) {
      throw new ApiError(
        "read_only",
        "The console runs read-only (CONSOLE_READ_ONLY): state-changing requests are refused.",
      );
    }
    const principal = await principalOf(request);
    if (!principal) {
      throw new ApiError(
        "unauthorized",
        "This action needs a sign-in (or the break-glass admin token: Authorization: Bearer <token>).",
      );
    }
    assertSameOrigin(request, principal, config);
    return principal;
  }
  return {
    principalOf,
    async requireRead(request) {
      // Who asks first, then their budget: a flood of anonymous reads from an address spends only
      // that address's anonymous budget, never a person's, a token's or the break-glass token's.
      const claim = claimOf(request);
      const waitMs = deps.reads.take(claim.budget.key);
      if (waitMs > 0) {
        const retryAfterS = Math.ceil(waitMs / 1000);
        throw new ApiError(
          "rate_limited",
          `Too many ${claim.budget.words}: retry in ${retryAfterS} s.`,
          { headers: { "retry-after": String(retryAfterS) } },
        );
      }
      const principal = await claim.confirm();
      if (principal) notePrincipal(request, principal);
      if (!principal && !config.publicRead) {
        throw new ApiError(
          "unauthorized",
          "Reading needs a sign-in (or the break-glass admin token: Authorization: Bearer).",
        );
      }
      // A person no rule gives a role (CONSOLE_RBAC_DEFAULT_ROLE=none) reads only what anyone may.
      if (principal && !config.publicRead) assertRole(principal, "read");
      return principal;
    },
    requireAction,
    requireCredential,
    requireSameOrigin: (request, principal) => assertSameOrigin(request, principal, config),
  };
}
