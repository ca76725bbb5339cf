import "server-only";
/**
 * Who may do what. Reads: open when CONSOLE_PUBLIC_READ, else a credential. State-changing requests:
 * not in read-only mode, an admin credential, and a same-origin request (CSRF defence: a browser
 * always sends Origin on POST/DELETE, and a bearer token cannot be attached by a foreign page).
 */
import type { ConsoleConfig } from "../config";
import { ApiError } from "../errors";
import {
  readCookie,
  safeEqual,
  SESSION_COOKIE,
  tokenFingerprint,
  verifySessionValue,
  type Principal,
} from "./credentials";

export interface Guard {
  /** The request's credential; null without one. Throws 401 for a wrong bearer token. */
  principalOf(request: Request): Principal | null;
  requireRead(request: Request): Principal | null;
  requireAdmin(request: Request): Principal;
  /** Same-origin check for any state-changing request (login included). */
  requireSameOrigin(request: Request, principal: Principal | null): void;
  /** Logs a session out before its expiry (this replica; other replicas honour the cookie's expiry). */
  revoke(nonce: string, expiresAt: number): void;
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

function readPrincipal(
  request: Request,
  adminToken: string | undefined,
  revoked: Map<string, number>,
): Principal | null {
  const authorization = request.headers.get("authorization");
  if (authorization !== null) {
    const token = /^bearer (.+)$/i.exec(authorization.trim())?.[1]?.trim();
    if (!token || !adminToken || !safeEqual(token, adminToken)) {
      throw new ApiError(
        "unauthorized",
        "The credential is not valid: send 'Authorization: Bearer <admin token>'.",
      );
    }
    return { kind: "token", label: `token:${tokenFingerprint(token)}`, expiresAt: null };
  }
  const cookie = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
  const session = cookie && adminToken ? verifySessionValue(adminToken, cookie) : null;
  // An expired or logged-out cookie is simply no credential: the browser is then anonymous.
  if (!session || revoked.has(session.nonce)) return null;
  return {
    kind: "session",
    label: `session:${session.nonce.slice(0, 8)}`,
    expiresAt: session.expiresAt,
  };
}

export function createGuard(config: ConsoleConfig): Guard {
  const revoked = new Map<string, number>();
  const principalOf = (request: Request) => readPrincipal(request, config.adminToken, revoked);
  return {
    principalOf,
    requireRead(request) {
      const principal = principalOf(request);
      if (!principal && !config.publicRead) {
        throw new ApiError(
          "unauthorized",
          "Reading needs the admin token (Authorization: Bearer) or a login.",
        );
      }
      return principal;
    },
    requireAdmin(request) {
      if (config.readOnly) {
        throw new ApiError(
          "read_only",
          "The console runs read-only (CONSOLE_READ_ONLY): state-changing requests are refused.",
        );
      }
      const principal = principalOf(request);
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
    revoke(nonce, expiresAt) {
      const now = Date.now();
      for (const [known, until] of revoked) if (until < now) revoked.delete(known);
      revoked.set(nonce, expiresAt);
    },
  };
}
