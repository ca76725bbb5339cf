import { latencyQuerySchema } from "@/lib/api";
import { jsonResponse } from "@/lib/server/errors";
import { readQuery } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route(async (request, ctx) => {
  await ctx.guard.requireRead(request);
  const { window } = readQuery(request, latencyQuerySchema);
  return jsonResponse(ctx.latency.read(window, ctx.config.probeIntervalMs));
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
