import { auditQuerySchema, MAX_ANONYMOUS_AUDIT_SCAN, MAX_AUDIT_SCAN } from "@/lib/api";
import { jsonResponse } from "@/lib/server/errors";
import { forReader, redactAudit } from "@/app/api/_lib/redact";
import { readQuery } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route(async (request, ctx) => {
  const principal = await ctx.guard.requireRead(request);
  const { limit, kind, ...filter } = readQuery(request, auditQuerySchema);
  // Anyone may search when reads are open: such a search looks back one page per node only.
  const read = { filter, maxScan: principal ? MAX_AUDIT_SCAN : MAX_ANONYMOUS_AUDIT_SCAN };
  const serverTime = Date.now();
  const body =
    kind === "refusals"
      ? await ctx.refusals
          .read(limit, read)
          .then(({ entries, ...rest }) => ({ serverTime, entries: [], refusals: entries, ...rest }))
      : { serverTime, ...(await ctx.audit.read(limit, read)) };
  return jsonResponse(forReader(ctx, principal, body, redactAudit));
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
