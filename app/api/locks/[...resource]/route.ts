import { jsonResponse } from "@/lib/server/errors";
import { forReader, redactLockResponse } from "@/app/api/_lib/redact";
import { resourceFromPath } from "@/lib/server/resource-path";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** One resource read fresh from every node (shared among viewers), with what the list lacked healed. The key comes from the raw path (see resource-path.ts). */
export const GET = route(async (request, ctx) => {
  const principal = await ctx.guard.requireRead(request);
  const key = resourceFromPath(request);
  return jsonResponse(forReader(ctx, principal, await ctx.readLock(key), redactLockResponse));
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
