import { jsonResponse } from "@/lib/server/errors";
import { forReader, redactContention } from "@/app/api/_lib/redact";
import { route } from "@/app/api/_lib/route";
import { sharedRead } from "@/app/api/_lib/shared";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Who blocks whom: chains (longest first) and deadlock cycles, from the live index (memory only).
 * Anonymous readers get digests of the values held, as on every other route.
 */
export const GET = route(async (request, ctx) => {
  const principal = await ctx.guard.requireRead(request);
  // The graph is rebuilt on the monitor's tick: one redaction per graph, whoever asks.
  const graph = ctx.contention.graph();
  const body = await sharedRead(ctx, "contention", principal, graph.serverTime, async () =>
    forReader(ctx, principal, graph, redactContention),
  );
  return jsonResponse(body);
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
