import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Starts a sign-in: a redirect to the provider with PKCE, state and nonce (kept in a short-lived
 * HttpOnly cookie), or to /login saying why not (no provider configured, provider unreachable).
 */
export const GET = route(async (request, ctx) => ctx.signIns.begin(request));

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
