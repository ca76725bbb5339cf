import { tokenIdSchema } from "@/lib/api";
import { actorOf } from "@/lib/server/actions/audited";
import { revokeTokenAudited } from "@/lib/server/actions/personal-tokens-audited";
import { jsonResponse } from "@/lib/server/errors";
import { parseWith } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const idFromPath = (request: Request) =>
  parseWith(tokenIdSchema, new URL(request.url).pathname.split("/").at(-1) ?? "", "path: token id");

/** Revokes a token: its owner's or, for an admin, anyone's. Audited. */
export const DELETE = route(async (request, ctx) => {
  const principal = await ctx.guard.requireCredential(request);
  const id = idFromPath(request);
  return jsonResponse(await revokeTokenAudited(ctx, actorOf(ctx, request, principal), id));
});

export {
  methodNotAllowed as GET,
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
} from "@/app/api/_lib/route";
