import "server-only";
/**
 * Who may do what. Reads: open when CONSOLE_PUBLIC_READ, else a credential with a role. State-changing
 * requests: not in read-only mode, a credential whose grants give the action's role (policy.ts; the
 * action then checks the lock's scope before it writes), and a same-origin request (CSRF defence: a
 * browser always sends Origin on POST/DELETE, and a bearer token cannot be attached by a foreign
 * page). A person may arrive through a trusted authenticating proxy (proxy-identity.ts).
 * Wrong credentials are throttled per client; logouts are checked against the nodes (revocations.ts).
 */
import type { ConsoleConfig } from "../config";
import { ApiError } from "../errors";
import { PERSONAL_TOKEN_PREFIX } from "@/lib/api";
import { assertConsoleAction, assertRole } from "./authorize";
import { breakGlassPrincipal } from "./identity";
import { ACTIONS, type Action } from "./policy";
import { createProxyIdentity } from "./proxy-identity";
import { clientIp } from "./client-info";
import type { CredentialFailures } from "./credential-failures";
import { notePrincipal } from "./request-refusals";
import {
  BEARER_LABEL,
  readCookie,
  safeEqual,
  SESSION_COOKIE,
  sessionLabel,
  verifySessionValue,
  type Principal,
} from "./credentials";
import type { PersonalTokens } from "./personal-tokens";
import type { ReadLimiter } from "./rate-limit";
import type { Revocations } from "./revocations";
import type { BreakGlass } from "./break-glass";
import type { SignIns } from "./sign-in/sign-ins";

export interface Guard {
  /**
   * The request's credential; null without one (or with an expired or logged-out cookie).
   * Throws 401 for a wrong bearer token, 429 while the client is blocked for wrong credentials.
   */
  principalOf(request: Request): Promise<Principal | null>;
  /** Also takes one request from the client's read budget (429 when spent). */
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
  /** requireAction for the console-wide admin actions (node settings). */
  requireAdmin(request: Request): Promise<Principal>;
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

export interface GuardDeps {
  readonly revocations: Revocations;
  readonly failures: CredentialFailures;
  readonly reads: ReadLimiter;
  readonly signIns: Pick<SignIns, "current" | "principalOf">;
  readonly breakGlass: Pick<BreakGlass, "used">;
  readonly personalTokens?: Pick<PersonalTokens, "check">;
}

/** `rlc_…`: a personal token, valid while a majority of the nodes holds its record. */
async function personalTokenPrincipal(
  request: Request,
  token: string,
  deps: GuardDeps,
): Promise<Principal> {
  const check = (await deps.personalTokens?.check(token)) ?? { outcome: "invalid" as const };
  if (check.outcome === "undecided") {
    // Not the caller's fault, so not a credential failure; refused all the same (fail closed).
    throw new ApiError(
      "quorum_unavailable",
      "Too few lock nodes answered to check this personal token; retry when a majority is up.",
    );
  }
  if (check.outcome === "invalid") {
    deps.failures.record(request, "bearer");
    throw new ApiError(
      "unauthorized",
      "The personal token is not valid: unknown, revoked or expired. Create a new one on the Tokens page.",
    );
  }
  deps.failures.succeeded(request);
  return check.principal;
}

export function createGuard(config: ConsoleConfig, deps: GuardDeps): Guard {
  const { revocations, failures } = deps;
  const adminToken = config.breakGlass ? config.adminToken : undefined;
  const breakGlassUsed = (principal: Principal, request: Request) => {
    deps.breakGlass.used(principal, request);
    return principal;
  };
  const proxy = createProxyIdentity(config);
  /** Who is asking, also noted for the request's refusal, should it be refused later. */
  async function principalOf(request: Request): Promise<Principal | null> {
    const principal = await resolvePrincipal(request);
    if (principal) notePrincipal(request, principal);
    return principal;
  }
  async function resolvePrincipal(request: Request): Promise<Principal | null> {
    // The proxy's word first: it may pass its own Authorization header (oauth2-proxy's ID token).
    const proxied = proxy.principalOf(request);
    if (proxied) return proxied;
    const authorization = request.headers.get("authorization");
    if (authorization !== null) {
      failures.assertAllowed(request);
      const token = /^bearer (.+)$/i.exec(authorization.trim())?.[1]?.trim();
      if (token?.startsWith(PERSONAL_TOKEN_PREFIX)) {
        return personalTokenPrincipal(request, token, deps);
      }
      if (config.adminToken && !config.breakGlass) {
        throw new ApiError(
          "unauthorized",
          "The break-glass admin token is turned off here (CONSOLE_BREAK_GLASS=false): sign in instead.",
        );
      }
      if (!token || !adminToken || !safeEqual(token, adminToken)) {
        failures.record(request, "bearer");
        throw new ApiError(
          "unauthorized",
          "The credential is not valid: send 'Authorization: Bearer <admin token>'.",
        );
      }
      failures.succeeded(request);
      // No fingerprint of the token: anything computed from the token alone, once published in
      // the (publicly readable) audit trail, lets anyone test guesses offline.
      return breakGlassUsed(breakGlassPrincipal("bearer", BEARER_LABEL, null, null), request);
    }
    const signIn = await deps.signIns.current(request);
    if (signIn) return deps.signIns.principalOf(signIn);
    const cookie = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
    const session = cookie && adminToken ? verifySessionValue(adminToken, cookie) : null;
    // An expired or signed-out cookie is simply no credential: the browser is then anonymous.
    if (!session || (await revocations.isRevoked(session.nonce))) return null;
    return breakGlassUsed(
      breakGlassPrincipal("cookie", sessionLabel(session.nonce), session.nonce, session.expiresAt),
      request,
    );
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
      const waitMs = deps.reads.take(clientIp(request, config.trustProxy));
      if (waitMs > 0) {
        const retryAfterS = Math.ceil(waitMs / 1000);
        throw new ApiError(
          "rate_limited",
          `Too many reads from this client: retry in ${retryAfterS} s.`,
          { headers: { "retry-after": String(retryAfterS) } },
        );
      }
      const principal = await principalOf(request);
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
    requireAdmin: (request) => requireAction(request, "node-admin"),
    requireSameOrigin: (request, principal) => assertSameOrigin(request, principal, config),
  };
}
