import "server-only";
/** Login, logout and "who am I" for the browser session (routes under /api/session). */
import type { LoginRequest, SessionResponse } from "@/lib/api";
import { clientIp } from "./auth/client-info";
import {
  createSessionValue,
  readCookie,
  safeEqual,
  SESSION_COOKIE,
  sessionCookieHeader,
  verifySessionValue,
  type Principal,
} from "./auth/credentials";
import type { Console } from "./console";
import { ApiError } from "./errors";

export function sessionBody(ctx: Console, principal: Principal | null): SessionResponse {
  return {
    authenticated: principal !== null,
    expiresAt: principal?.expiresAt ?? null,
    readOnly: ctx.config.readOnly,
    publicRead: ctx.config.publicRead,
    canWrite: principal !== null && !ctx.config.readOnly,
  };
}

/** Cookies get `Secure` when the console is reached over HTTPS (directly or via a trusted proxy). */
function isHttps(request: Request, trustProxy: boolean): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  return trustProxy && request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

/** Checks the token (rate-limited per client and globally); returns the body and Set-Cookie header. */
export function login(
  ctx: Console,
  request: Request,
  body: LoginRequest,
): { principal: Principal; body: SessionResponse; setCookie: string } {
  const client = clientIp(request);
  const waitMs = ctx.loginLimiter.retryAfterMs(client);
  if (waitMs > 0) {
    const retryAfterS = Math.ceil(waitMs / 1000);
    throw new ApiError(
      "rate_limited",
      `Too many failed logins: retry in ${retryAfterS} s.`,
      undefined,
      { "retry-after": String(retryAfterS) },
    );
  }
  const adminToken = ctx.config.adminToken;
  if (!adminToken || !safeEqual(body.token, adminToken)) {
    ctx.loginLimiter.recordFailure(client);
    throw new ApiError("unauthorized", "Wrong admin token.");
  }
  ctx.loginLimiter.reset(client);
  const session = createSessionValue(adminToken, ctx.config.sessionTtlS);
  const nonce = session.value.split(".")[1] ?? "";
  const principal: Principal = {
    kind: "session",
    label: `session:${nonce.slice(0, 8)}`,
    expiresAt: session.expiresAt,
  };
  return {
    principal,
    body: sessionBody(ctx, principal),
    setCookie: sessionCookieHeader(
      session.value,
      ctx.config.sessionTtlS,
      isHttps(request, ctx.config.trustProxy),
    ),
  };
}

/** Revokes the request's session (if any) and returns the Set-Cookie header that clears it. */
export function logout(ctx: Console, request: Request): string {
  const cookie = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
  const session =
    cookie && ctx.config.adminToken ? verifySessionValue(ctx.config.adminToken, cookie) : null;
  if (session) ctx.guard.revoke(session.nonce, session.expiresAt);
  return sessionCookieHeader("", 0, isHttps(request, ctx.config.trustProxy));
}

/** Login and logout land in the audit trail too: who held the admin credential, and when. */
export async function auditSession(
  ctx: Console,
  request: Request,
  action: "login" | "logout",
  principal: Principal | null,
): Promise<void> {
  await ctx.audit.append({
    action,
    actor: principal?.label ?? "anonymous",
    clientIp: clientIp(request),
    userAgent: request.headers.get("user-agent")?.slice(0, 256) ?? "",
    resources: [],
    value: null,
    reason: null,
    outcome: "success",
    detail: action === "login" ? "browser session started" : "browser session ended",
  });
}
