import { forceReleaseRequestSchema } from "@/lib/api";
import { actorOf } from "@/lib/server/actions/audited";
import { forceReleaseAudited } from "@/lib/server/actions/force-release-audited";
import { noteResources } from "@/lib/server/auth/request-refusals";
import { jsonResponse } from "@/lib/server/errors";
import { readJsonBody } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A lock named "force-release" is still readable: GET falls through to the single-lock read. */
export { GET } from "../[...resource]/route";

/** Operator force-unlock within scope (lib/api/unlock-rule.ts: a tombstone, or the explicit delete-now); always audited. */
export const POST = route(async (request, ctx) => {
  const principal = await ctx.guard.requireAction(request, "force-release");
  const body = await readJsonBody(request, forceReleaseRequestSchema);
  noteResources(request, [body.resource ?? `base64:${body.resourceBase64 ?? ""}`]);
  return jsonResponse(
    await forceReleaseAudited(ctx, actorOf(ctx, request, principal, body.incident), body),
  );
});

export {
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
