import { holderSessionReleaseRequestSchema } from "@/lib/api";
import { actorOf } from "@/lib/server/actions/audited";
import { releaseSessionAudited } from "@/lib/server/actions/release-session";
import { jsonResponse } from "@/lib/server/errors";
import { readJsonBody } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";
import { sessionIdFromPath } from "@/lib/server/sessions/session-path";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Operator (every lock within scope): force-release every lock of one holder session in one audited action (`preview: true` first). */
export const POST = route(async (request, ctx) => {
  const principal = await ctx.guard.requireAction(request, "release-session");
  const sessionId = sessionIdFromPath(request);
  const body = await readJsonBody(request, holderSessionReleaseRequestSchema);
  return jsonResponse(
    await releaseSessionAudited(
      ctx,
      actorOf(ctx, request, principal, body.incident),
      sessionId,
      body,
    ),
  );
});

export {
  methodNotAllowed as GET,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
