import { createTokenRequestSchema, tokensQuerySchema } from "@/lib/api";
import { actorOf } from "@/lib/server/actions/audited";
import { createTokenAudited } from "@/lib/server/actions/personal-tokens-audited";
import { ApiError, jsonResponse } from "@/lib/server/errors";
import { readJsonBody, readQuery } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Your personal tokens (admins: `?owner=all`, everyone's), with their last use; never a secret. */
export const GET = route(async (request, ctx) => {
  const principal = await ctx.guard.requireRead(request);
  if (!principal) {
    throw new ApiError("unauthorized", "Listing tokens needs a sign-in (or a token).");
  }
  const { owner } = readQuery(request, tokensQuerySchema);
  return jsonResponse(await ctx.personalTokens.list(principal, owner));
});

/** A new personal token within your own grants: the secret is in this answer only. Audited. */
export const POST = route(async (request, ctx) => {
  const principal = await ctx.guard.requireCredential(request);
  const body = await readJsonBody(request, createTokenRequestSchema);
  return jsonResponse(await createTokenAudited(ctx, actorOf(ctx, request, principal), body), 201);
});

export {
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
