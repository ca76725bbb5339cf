import { auditQuerySchema } from "@/lib/api";
import { jsonResponse } from "@/lib/server/errors";
import { forReader, redactAudit } from "@/app/api/_lib/redact";
import { readQuery } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route(async (request, ctx) => {
  const principal = await ctx.guard.requireRead(request);
  const { limit, ...filter } = readQuery(request, auditQuerySchema);
  const body = { serverTime: Date.now(), ...(await ctx.audit.read(limit, filter)) };
  return jsonResponse(forReader(ctx, principal, body, redactAudit));
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
