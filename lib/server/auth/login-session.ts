import "server-only";
/** Login, logout and "who am I" for the browser session (routes under /api/session). */
import type { LoginRequest, SessionResponse } from "@/lib/api";
import { clientIp, userAgent } from "./client-info";
import {
  createSessionValue,
  readCookie,
  safeEqual,
  SESSION_COOKIE,
  sessionCookieHeader,
  sessionLabel,
  verifySessionValue,
  type Principal,
} from "./credentials";
import type { ConsoleContext } from "../console";
import { ApiError } from "../errors";
import { eventStreamsOf } from "../timeline/event-streams";

export function sessionBody(ctx: ConsoleContext, principal: Principal | null): SessionResponse {
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

/** Checks the token (rate-limited per client); returns the body and Set-Cookie header. */
export function login(
  ctx: ConsoleContext,
  request: Request,
  body: LoginRequest,
): { principal: Principal; body: SessionResponse; setCookie: string } {
  ctx.credentialFailures.assertAllowed(request);
  const adminToken = ctx.config.adminToken;
  if (!adminToken || !safeEqual(body.token, adminToken)) {
    ctx.credentialFailures.record(request, "login");
    throw new ApiError("unauthorized", "Wrong admin token.");
  }
  ctx.credentialFailures.succeeded(request);
  const session = createSessionValue(adminToken, ctx.config.sessionTtlS);
  const nonce = session.value.split(".")[1] ?? "";
  const principal: Principal = {
    kind: "session",
    label: sessionLabel(nonce),
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

/**
 * Revokes the request's session (if any) on the nodes and returns the Set-Cookie header that
 * clears it. Refused (503) when no node stored the revocation: the cookie would then still open
 * the console on another replica or after a restart, and the operator must know.
 */
export async function logout(ctx: ConsoleContext, request: Request): Promise<string> {
  const cookie = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
  const session =
    cookie && ctx.config.adminToken ? verifySessionValue(ctx.config.adminToken, cookie) : null;
  if (session) {
    const storedOn = await ctx.revocations.revoke(session.nonce, session.expiresAt);
    // This replica knows it at once: the event streams opened with this session end now.
    eventStreamsOf(ctx).loggedOut(sessionLabel(session.nonce));
    if (storedOn.length === 0) {
      throw new ApiError(
        "quorum_unavailable",
        "No Redis node answered, so the logout could not be recorded; this session stays valid on other replicas. Retry when a node is up.",
      );
    }
  }
  return sessionCookieHeader("", 0, isHttps(request, ctx.config.trustProxy));
}

/** Login and logout land in the audit trail too: who held the admin credential, and when. */
export async function auditSession(
  ctx: ConsoleContext,
  request: Request,
  action: "login" | "logout",
  principal: Principal | null,
): Promise<void> {
  await ctx.audit.append({
    action,
    actor: principal?.label ?? "anonymous",
    clientIp: clientIp(request, ctx.config.trustProxy),
    userAgent: userAgent(request),
    resources: [],
    value: null,
    reason: null,
    outcome: "success",
    detail: action === "login" ? "browser session started" : "browser session ended",
  });
}
