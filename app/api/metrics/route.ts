import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Prometheus text format; refreshes the shared snapshot and node report first (single flight). */
export const GET = route(async (request, ctx) => {
  await ctx.guard.requireRead(request);
  await Promise.all([ctx.snapshot(), ctx.nodes()]);
  const body = await ctx.metrics.registry.metrics();
  return new Response(body, {
    headers: { "content-type": ctx.metrics.registry.contentType, "cache-control": "no-store" },
  });
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/lib/server/route";
