import { loginRequestSchema } from "@/lib/api";
import { jsonResponse } from "@/lib/server/errors";
import { readJsonBody } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";
import { auditSession, login, logout, sessionBody } from "@/lib/server/auth/login-session";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Who am I: the person, role and grants; read-only?; for admins, the latest break-glass use. */
export const GET = route(async (request, ctx) => {
  const principal = await ctx.guard.principalOf(request);
  const body = sessionBody(ctx, principal);
  if (body.role === "admin") body.breakGlassLastUse = await ctx.breakGlass.lastUse();
  return jsonResponse(body);
});

/** Break-glass sign-in with the admin token: an HttpOnly, SameSite=Strict cookie. Rate-limited. */
export const POST = route(async (request, ctx) => {
  ctx.guard.requireSameOrigin(request, null);
  const body = await readJsonBody(request, loginRequestSchema);
  const session = login(ctx, request, body);
  await auditSession(ctx, request, "sign-in", session.principal);
  return jsonResponse(session.body, 200, { "set-cookie": session.setCookie });
});

/** Sign-out of a break-glass sign-in: revokes it and clears the cookie. */
export const DELETE = route(async (request, ctx) => {
  ctx.guard.requireSameOrigin(request, null);
  const principal = await ctx.guard.principalOf(request);
  const setCookie = await logout(ctx, request);
  if (principal?.kind === "break-glass" && principal.carrier === "cookie")
    await auditSession(ctx, request, "sign-out", principal);
  return jsonResponse(sessionBody(ctx, null), 200, { "set-cookie": setCookie });
});

export { methodNotAllowed as PUT, methodNotAllowed as PATCH } from "@/app/api/_lib/route";
