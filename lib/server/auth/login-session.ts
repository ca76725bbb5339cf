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
import { actorFields } from "./actor-fields";
import type { AuditTrail } from "../audit/audit-trail";
import type { ConsoleConfig } from "../config";
import { ApiError } from "../errors";
import { breakGlassPrincipal, highestRole } from "./identity";
import { eventStreamsOf } from "../timeline/event-streams";
import type { CredentialFailures } from "./credential-failures";
import type { Revocations } from "./revocations";

/**
 * What the browser session's routes use of the console, each narrowed to the calls made on it;
 * each function takes the members it reads. The console (console.ts) is passed as is.
 */
export interface LoginDeps {
  readonly config: Pick<
    ConsoleConfig,
    "readOnly" | "publicRead" | "adminToken" | "sessionTtlS" | "trustProxy" | "oidc" | "breakGlass"
  >;
  readonly credentialFailures: Pick<CredentialFailures, "assertAllowed" | "record" | "succeeded">;
  readonly revocations: Pick<Revocations, "revoke">;
  readonly audit: Pick<AuditTrail, "append">;
}

export function sessionBody(
  ctx: Pick<LoginDeps, "config">,
  principal: Principal | null,
): SessionResponse {
  return {
    authenticated: principal !== null,
    expiresAt: principal?.expiresAt ?? null,
    readOnly: ctx.config.readOnly,
    publicRead: ctx.config.publicRead,
    canWrite: principal !== null && !ctx.config.readOnly,
    credential: principal?.kind ?? null,
    person: principal?.person
      ? { ...principal.person, groups: [...principal.person.groups] }
      : null,
    role: principal ? highestRole(principal.grants) : null,
    grants: (principal?.grants ?? []).map((grant) => ({
      role: grant.role,
      resources: grant.resources && [...grant.resources],
      services: grant.services && [...grant.services],
      rule: grant.rule,
    })),
    signIn: ctx.config.oidc
      ? { providerName: ctx.config.oidc.providerName, loginUrl: "/api/auth/login" }
      : null,
    breakGlassEnabled: ctx.config.breakGlass && ctx.config.adminToken !== undefined,
    breakGlassLastUse: null,
  };
}

/** Cookies get `Secure` when the console is reached over HTTPS (directly or via a trusted proxy). */
function isHttps(request: Request, trustProxy: boolean): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  return trustProxy && request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

/** Checks the token (rate-limited per client); returns the body and Set-Cookie header. */
export function login(
  ctx: Pick<LoginDeps, "config" | "credentialFailures">,
  request: Request,
  body: LoginRequest,
): { principal: Principal; body: SessionResponse; setCookie: string } {
  ctx.credentialFailures.assertAllowed(request);
  const adminToken = ctx.config.breakGlass ? ctx.config.adminToken : undefined;
  if (ctx.config.adminToken && !adminToken) {
    throw new ApiError(
      "unauthorized",
      "The break-glass admin token is turned off here (CONSOLE_BREAK_GLASS=false): sign in instead.",
    );
  }
  if (!adminToken || !safeEqual(body.token, adminToken)) {
    ctx.credentialFailures.record(request, "login");
    throw new ApiError("unauthorized", "Wrong admin token.");
  }
  ctx.credentialFailures.succeeded(request);
  const session = createSessionValue(adminToken, ctx.config.sessionTtlS);
  const nonce = session.value.split(".")[1] ?? "";
  const principal = breakGlassPrincipal("cookie", sessionLabel(nonce), nonce, session.expiresAt);
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
export async function logout(
  ctx: Pick<LoginDeps, "config" | "revocations">,
  request: Request,
): Promise<string> {
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
        "No Redis node answered, so the sign-out could not be recorded; this sign-in stays valid on other replicas. Retry when a node is up.",
      );
    }
  }
  return sessionCookieHeader("", 0, isHttps(request, ctx.config.trustProxy));
}

/** Sign-ins and sign-outs land in the audit trail too: who held which credential, and when. */
export async function auditSession(
  ctx: Pick<LoginDeps, "config" | "audit">,
  request: Request,
  action: "sign-in" | "sign-out",
  principal: Principal | null,
  detail?: string,
): Promise<void> {
  await ctx.audit.append({
    action,
    ...actorFields(principal, "viewer"),
    clientIp: clientIp(request, ctx.config.trustProxy),
    userAgent: userAgent(request),
    resources: [],
    value: null,
    reason: null,
    outcome: "success",
    detail:
      detail ??
      (action === "sign-in"
        ? "sign-in with the break-glass admin token"
        : "sign-out of a break-glass sign-in"),
  });
}
