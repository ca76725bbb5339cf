import { releaseRequestSchema } from "@/lib/api";
import { actorOf, releaseAudited } from "@/lib/server/actions/audited";
import { noteResources } from "@/lib/server/auth/request-refusals";
import { jsonResponse } from "@/lib/server/errors";
import { readJsonBody } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A lock named "release" is still readable: GET falls through to the single-lock read. */
export { GET } from "../[...resource]/route";

/** Release by value on every node; 200 even when it had already expired (releasedCount 0). */
export const POST = route(async (request, ctx) => {
  const principal = await ctx.guard.requireAction(request, "release");
  const body = await readJsonBody(request, releaseRequestSchema);
  noteResources(request, body.resources);
  const result = await releaseAudited(ctx, actorOf(ctx, request, principal), body);
  return jsonResponse({ serverTime: Date.now(), ...result });
});

export {
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
