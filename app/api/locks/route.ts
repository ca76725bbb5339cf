import { acquireRequestSchema, locksQuerySchema } from "@/lib/api";
import { acquireAudited, actorOf } from "@/lib/server/actions/audited";
import { noteResources } from "@/lib/server/auth/request-refusals";
import { jsonResponse } from "@/lib/server/errors";
import { readJsonBody, readQuery } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";
import { forReader, redactRow } from "@/app/api/_lib/redact";
import { sharedRead } from "@/app/api/_lib/shared";
import { pageOf } from "@/lib/server/locks/pages/page";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * The live index, filtered and paginated: read from memory, never from the nodes. One page per
 * query and kind of reader serves every reader asking for it while the index has not changed
 * (its change count is in the key), for the snapshot's max age at most.
 */
export const GET = route(async (request, ctx) => {
  const principal = await ctx.guard.requireRead(request);
  const query = readQuery(request, locksQuerySchema);
  const body = await sharedRead(
    ctx,
    "locks",
    principal,
    [query, ctx.index.changeCount],
    async () => {
      const page = await pageOf(ctx.index, query);
      // How often each row's lock changed hands in the last hour, from the timeline (memory).
      const items = page.items.map((item) => ({
        ...forReader(ctx, principal, item, redactRow),
        activity: ctx.timeline.activity(item.resource, page.serverTime),
      }));
      return { ...page, items };
    },
  );
  return jsonResponse(body);
});

/** Acquire: 201 with the lock, 409 when held elsewhere. */
export const POST = route(async (request, ctx) => {
  const principal = await ctx.guard.requireAction(request, "acquire");
  const body = await readJsonBody(request, acquireRequestSchema);
  noteResources(request, body.resources);
  const lock = await acquireAudited(ctx, actorOf(ctx, request, principal), body);
  return jsonResponse({ serverTime: Date.now(), lock }, 201);
});

export {
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
