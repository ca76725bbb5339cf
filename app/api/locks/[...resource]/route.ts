import { jsonResponse } from "@/lib/server/errors";
import { resourceFromPath } from "@/lib/server/resource-path";
import { route } from "@/lib/server/route";
import { readOneLock } from "@/lib/server/snapshot/read-one";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** One resource read fresh from every node. The key comes from the raw path (see resource-path.ts). */
export const GET = route(async (request, ctx) => {
  await ctx.guard.requireRead(request);
  const key = resourceFromPath(request);
  return jsonResponse(
    await readOneLock(ctx.registry.nodes, key, ctx.registry.quorumSize, ctx.config),
  );
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/lib/server/route";
