import { revokeSignInsRequestSchema, type RevokeSignInsResponse } from "@/lib/api";
import { readJsonBody } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";
import { clientIp, userAgent } from "@/lib/server/auth/client-info";
import { ApiError, jsonResponse } from "@/lib/server/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * An admin ends every sign-in one person made so far, on every replica (sign-in/records.ts): their
 * next request is anonymous, and a new sign-in at the provider is needed. Needs the admin role over
 * every lock (the policy's `sign-in-admin`) and a reason; audited.
 */
export const POST = route(async (request, ctx) => {
  const principal = await ctx.guard.requireAction(request, "sign-in-admin");
  const settings = ctx.config.oidc;
  if (!settings) {
    throw new ApiError(
      "invalid_request",
      "Sign-in with OpenID Connect is not set up here (CONSOLE_OIDC_ISSUER): there are no sign-ins to revoke.",
    );
  }
  const body = await readJsonBody(request, revokeSignInsRequestSchema);
  const storedOn = await ctx.signIns.records.revokePerson(
    settings.issuer,
    body.subject,
    ctx.config.signInTtlS * 1000,
  );
  await ctx.audit.append({
    action: "revoke-sign-ins",
    actor: principal.label,
    clientIp: clientIp(request, ctx.config.trustProxy),
    userAgent: userAgent(request),
    resources: [],
    value: null,
    reason: body.reason,
    outcome: storedOn.length > 0 ? "success" : "failure",
    detail:
      storedOn.length > 0
        ? `every sign-in of sub ${body.subject} (issuer ${settings.issuer}) ended`
        : "quorum_unavailable",
  });
  if (storedOn.length === 0) {
    throw new ApiError(
      "quorum_unavailable",
      "No Redis node answered, so the revocation could not be recorded. Retry when a node is up.",
    );
  }
  const answer: RevokeSignInsResponse = {
    subject: body.subject,
    issuer: settings.issuer,
    storedOn,
  };
  return jsonResponse(answer);
});

export {
  methodNotAllowed as GET,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
