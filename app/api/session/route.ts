import { loginRequestSchema } from "@/lib/api";
import { jsonResponse } from "@/lib/server/errors";
import { readJsonBody } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";
import { auditSession, login, logout, sessionBody } from "@/lib/server/auth/login-session";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Who am I: authenticated?, read-only?, may the UI offer actions? */
export const GET = route(async (request, ctx) =>
  jsonResponse(sessionBody(ctx, await ctx.guard.principalOf(request))),
);

/** Login with the admin token: sets an HttpOnly, SameSite=Strict session cookie. Rate-limited. */
export const POST = route(async (request, ctx) => {
  ctx.guard.requireSameOrigin(request, null);
  const body = await readJsonBody(request, loginRequestSchema);
  const session = login(ctx, request, body);
  await auditSession(ctx, request, "login", session.principal);
  return jsonResponse(session.body, 200, { "set-cookie": session.setCookie });
});

/** Logout: revokes the session and clears the cookie. */
export const DELETE = route(async (request, ctx) => {
  ctx.guard.requireSameOrigin(request, null);
  const principal = await ctx.guard.principalOf(request);
  const setCookie = await logout(ctx, request);
  if (principal?.kind === "session") await auditSession(ctx, request, "logout", principal);
  return jsonResponse(sessionBody(ctx, null), 200, { "set-cookie": setCookie });
});

export { methodNotAllowed as PUT, methodNotAllowed as PATCH } from "@/app/api/_lib/route";
