import { keyspaceEventsRequestSchema, nodePathIdSchema } from "@/lib/api";
import { actorOf } from "@/lib/server/actions/audited";
import {
  previewKeyspaceEvents,
  turnOnKeyspaceEventsAudited,
} from "@/lib/server/actions/keyspace-events";
import { jsonResponse } from "@/lib/server/errors";
import { parseWith, readJsonBody } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The node id: the path segment before "keyspace-events" (route handlers here get no params). */
function nodeIdOf(request: Request): string {
  const segment = new URL(request.url).pathname.split("/").at(-2) ?? "";
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a malformed escape: refused by the schema as it stands
  }
}

/**
 * Admin: CONFIG SET the keyspace-event flags the node lacks (or the command to run); audited. With
 * `preview: true`, only what it would run (admin too: it reads the node's configuration).
 */
export const POST = route(async (request, ctx) => {
  const principal = await ctx.guard.requireAction(request, "node-admin");
  const body = await readJsonBody(request, keyspaceEventsRequestSchema);
  const nodeId = parseWith(nodePathIdSchema, nodeIdOf(request), "node id");
  if (body.preview) return jsonResponse(await previewKeyspaceEvents(ctx, nodeId));
  return jsonResponse(
    await turnOnKeyspaceEventsAudited(ctx, actorOf(ctx, request, principal), nodeId),
  );
});

export {
  methodNotAllowed as GET,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
