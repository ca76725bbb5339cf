import { jsonResponse } from "@/lib/server/errors";
import { forReader, redactSessions } from "@/app/api/_lib/redact";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Every live holder session: its liveness, labels, locks held and waits (not the console's login). */
export const GET = route(async (request, ctx) => {
  const principal = await ctx.guard.requireRead(request);
  return jsonResponse(forReader(ctx, principal, await ctx.sessions.list(), redactSessions));
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
