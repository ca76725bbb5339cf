import { jsonResponse } from "@/lib/server/errors";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Who blocks whom: chains (longest first) and deadlock cycles, from the live index (memory only). */
export const GET = route(async (request, ctx) => {
  await ctx.guard.requireRead(request);
  return jsonResponse(ctx.contention.graph());
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
