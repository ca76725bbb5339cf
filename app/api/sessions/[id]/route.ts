import { jsonResponse } from "@/lib/server/errors";
import { forReader, redactSessions } from "@/app/api/_lib/redact";
import { route } from "@/app/api/_lib/route";
import { sessionIdFromPath } from "@/lib/server/sessions/session-path";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** One holder session: its liveness read fresh from the nodes, its locks and waits. */
export const GET = route(async (request, ctx) => {
  const principal = await ctx.guard.requireRead(request);
  const body = await ctx.sessions.get(sessionIdFromPath(request));
  return jsonResponse(forReader(ctx, principal, body, redactSessions));
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
