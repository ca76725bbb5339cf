import { jsonResponse } from "@/lib/server/errors";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * 200 whenever the server runs (for load balancers); the body says which nodes answer, from the
 * shared node report (its serverTime says when it was read).
 */
export const GET = route(async (_request, ctx) => jsonResponse(await ctx.health()));

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
