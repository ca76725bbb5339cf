import { waitsQuerySchema } from "@/lib/api";
import { waitReport } from "@/lib/server/contention/wait-report";
import { jsonResponse } from "@/lib/server/errors";
import { readQuery } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Wait times of the last hour, top blockers and wait-time objectives (memory only). */
export const GET = route(async (request, ctx) => {
  await ctx.guard.requireRead(request);
  const { resource } = readQuery(request, waitsQuerySchema);
  const { stats, objectives } = ctx.contention;
  return jsonResponse(waitReport(stats, objectives, Date.now(), resource ?? null));
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
