import { eventsQuerySchema } from "@/lib/api";
import { jsonResponse } from "@/lib/server/errors";
import { redactTransition } from "@/app/api/_lib/redact";
import { readQuery } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";
import { filterOf } from "@/lib/server/timeline/events-query";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Lock transitions, newest first, from the console's memory: never a read of a node. */
export const GET = route(async (request, ctx) => {
  const principal = await ctx.guard.requireRead(request);
  const query = readQuery(request, eventsQuerySchema);
  const transitions = ctx.timeline.transitions(query.limit, filterOf(query), query.after);
  return jsonResponse({
    serverTime: Date.now(),
    transitions: principal === null ? transitions.map(redactTransition) : transitions,
    horizon: ctx.timeline.horizon(),
  });
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
