import { extendRequestSchema } from "@/lib/api";
import { actorOf, extendAudited } from "@/lib/server/actions/audited";
import { noteResources } from "@/lib/server/auth/request-refusals";
import { jsonResponse } from "@/lib/server/errors";
import { readJsonBody } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A lock named "extend" is still readable: GET falls through to the single-lock read. */
export { GET } from "../[...resource]/route";

/** Extend by value: 200 with the extended lock, 409 when no longer held on a majority. */
export const POST = route(async (request, ctx) => {
  const principal = await ctx.guard.requireAction(request, "extend");
  const body = await readJsonBody(request, extendRequestSchema);
  noteResources(request, body.resources);
  const lock = await extendAudited(ctx, actorOf(ctx, request, principal), body);
  return jsonResponse({ serverTime: Date.now(), lock });
});

export {
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
