import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Prometheus text format; sets the lock gauges from the live index and refreshes the node report first (console.ts metricsText). */
export const GET = route(async (request, ctx) => {
  await ctx.guard.requireRead(request);
  const body = await ctx.metricsText();
  return new Response(body, {
    headers: { "content-type": ctx.metrics.registry.contentType, "cache-control": "no-store" },
  });
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
