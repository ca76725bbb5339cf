import "server-only";
/**
 * Who may do what. Reads: open when CONSOLE_PUBLIC_READ, else a credential. State-changing requests:
 * not in read-only mode, an admin credential, and a same-origin request (CSRF defence: a browser
 * always sends Origin on POST/DELETE, and a bearer token cannot be attached by a foreign page).
 * Wrong credentials are throttled per client; logouts are checked against the nodes (revocations.ts).
 */
import type { ConsoleConfig } from "../config";
import { ApiError } from "../errors";
import { clientIp } from "./client-info";
import type { CredentialFailures } from "./credential-failures";
import {
  readCookie,
  safeEqual,
  SESSION_COOKIE,
  sessionLabel,
  verifySessionValue,
  type Principal,
} from "./credentials";
import type { ReadLimiter } from "./rate-limit";
import type { Revocations } from "./revocations";

export interface Guard {
  /**
   * The request's credential; null without one (or with an expired or logged-out cookie).
   * Throws 401 for a wrong bearer token, 429 while the client is blocked for wrong credentials.
   */
  principalOf(request: Request): Promise<Principal | null>;
  /** Also takes one request from the client's read budget (429 when spent). */
  requireRead(request: Request): Promise<Principal | null>;
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
    if (principal?.kind === "token") return;
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
}

export function createGuard(config: ConsoleConfig, deps: GuardDeps): Guard {
  const { revocations, failures } = deps;
  async function principalOf(request: Request): Promise<Principal | null> {
    const authorization = request.headers.get("authorization");
    if (authorization !== null) {
      failures.assertAllowed(request);
      const token = /^bearer (.+)$/i.exec(authorization.trim())?.[1]?.trim();
      if (!token || !config.adminToken || !safeEqual(token, config.adminToken)) {
        failures.record(request, "bearer");
        throw new ApiError(
          "unauthorized",
          "The credential is not valid: send 'Authorization: Bearer <admin token>'.",
        );
      }
      failures.succeeded(request);
      // No fingerprint of the token: anything computed from the token alone, once published in
      // the (publicly readable) audit trail, lets anyone test guesses offline.
      return { kind: "token", label: "token", expiresAt: null };
    }
    const cookie = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
    const session =
      cookie && config.adminToken ? verifySessionValue(config.adminToken, cookie) : null;
    // An expired or logged-out cookie is simply no credential: the browser is then anonymous.
    if (!session || (await revocations.isRevoked(session.nonce))) return null;
    return { kind: "session", label: sessionLabel(session.nonce), expiresAt: session.expiresAt };
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
          undefined,
          { "retry-after": String(retryAfterS) },
        );
      }
      const principal = await principalOf(request);
      if (!principal && !config.publicRead) {
        throw new ApiError(
          "unauthorized",
          "Reading needs the admin token (Authorization: Bearer) or a login.",
        );
      }
      return principal;
    },
    async requireAdmin(request) {
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
          "This action needs the admin token (Authorization: Bearer <token>) or a login.",
        );
      }
      assertSameOrigin(request, principal, config);
      return principal;
    },
    requireSameOrigin: (request, principal) => assertSameOrigin(request, principal, config),
  };
}
