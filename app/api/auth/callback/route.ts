import { route } from "@/app/api/_lib/route";
import { highestRole } from "@/lib/server/auth/identity";
import { auditSession } from "@/lib/server/auth/login-session";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The provider's answer: checked (sign-in/sign-ins.ts), then the sign-in cookie and the audit. */
export const GET = route(async (request, ctx) => {
  const { response, signIn } = await ctx.signIns.finish(request);
  if (signIn) {
    const principal = ctx.signIns.principalOf(signIn);
    const groups = signIn.groups.join(", ") || "none";
    const role = highestRole(principal.grants) ?? "no role";
    await auditSession(
      ctx,
      request,
      "sign-in",
      principal,
      `signed in with ${ctx.config.oidc?.providerName} as ${role} (sub ${signIn.subject}, issuer ${signIn.issuer}; groups: ${groups})`,
    );
  }
  return response;
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
