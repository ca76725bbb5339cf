import { revokeRequestSchema } from "@/lib/api";
import { actorOf } from "@/lib/server/actions/audited";
import { revokeAudited } from "@/lib/server/actions/revoke-audited";
import { noteResources } from "@/lib/server/auth/request-refusals";
import { jsonResponse } from "@/lib/server/errors";
import { readJsonBody } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A lock named "revoke" is still readable: GET falls through to the single-lock read. */
export { GET } from "../[...resource]/route";

/** Operator (within scope): ask the holder to release (a revoke marker and a notice); 202, always audited. */
export const POST = route(async (request, ctx) => {
  const principal = await ctx.guard.requireAction(request, "revoke");
  const body = await readJsonBody(request, revokeRequestSchema);
  noteResources(request, [body.resource ?? `base64:${body.resourceBase64 ?? ""}`]);
  return jsonResponse(
    await revokeAudited(ctx, actorOf(ctx, request, principal, body.incident), body),
    202,
  );
});

export {
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
