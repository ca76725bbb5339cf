import type { SignOutResponse } from "@/lib/api";
import { route } from "@/app/api/_lib/route";
import { auditSession, logout } from "@/lib/server/auth/login-session";
import { ApiError, jsonResponse } from "@/lib/server/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Ends the browser's sign-in on every replica (a person's, or a break-glass one) and clears its
 * cookies; answers the provider's RP-initiated logout URL for the browser to visit next, when the
 * provider offers one. Same-origin only: a foreign page cannot sign anybody out.
 */
export const POST = route(async (request, ctx) => {
  ctx.guard.requireSameOrigin(request, null);
  const principal = await ctx.guard.principalOf(request);
  const { signIn, setCookie, endSessionUrl, storedOn } = await ctx.signIns.signOut(request);
  if (signIn && storedOn.length === 0) {
    throw new ApiError(
      "quorum_unavailable",
      "No Redis node answered, so the sign-out could not be recorded; this sign-in stays valid on other replicas. Retry when a node is up.",
    );
  }
  const clearBreakGlass = await logout(ctx, request);
  if (principal?.carrier === "cookie") {
    await auditSession(ctx, request, "sign-out", principal, "signed out");
  }
  const body: SignOutResponse = { endSessionUrl };
  const response = jsonResponse(body);
  response.headers.append("set-cookie", setCookie);
  response.headers.append("set-cookie", clearBreakGlass);
  return response;
});

export {
  methodNotAllowed as GET,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
