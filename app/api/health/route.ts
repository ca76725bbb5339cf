import { healthOf } from "@/lib/server/health/health";
import { jsonResponse } from "@/lib/server/errors";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** 200 whenever the server runs (for load balancers); the body says which nodes answer. */
export const GET = route(async (_request, ctx) => {
  const nodes = await ctx.nodes();
  return jsonResponse(healthOf(nodes, ctx.config.readOnly));
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
