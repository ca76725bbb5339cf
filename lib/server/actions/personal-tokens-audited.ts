import "server-only";
/**
 * Token creation and revocation as the routes run them: each lands in the audit trail, and so does
 * a 503 (too few nodes answered: the write may stand on some), so the trail says who minted or
 * ended which token. A refusal before any write (400, 403, 404) goes to the refusal log only (the
 * route wrapper counts it): a flood of them cannot evict actions (issue 49).
 */
import type { CreateTokenRequest, CreateTokenResponse, RevokeTokenResponse } from "@/lib/api";
import { actorRecord, type Actor } from "./audited";
import type { AuditTrail } from "../audit/audit-trail";
import { isApiError } from "../errors";
import { isRefusal } from "../auth/request-refusals";
import type { PersonalTokens } from "../auth/personal-tokens";
import { grantWords } from "../auth/personal-tokens/scope";

export interface TokenRouteDeps {
  readonly personalTokens: PersonalTokens;
  readonly audit: Pick<AuditTrail, "append">;
}

async function audited<Result>(
  ctx: TokenRouteDeps,
  actor: Actor,
  action: "token-create" | "token-revoke",
  run: () => Promise<Result>,
  summary: (result: Result) => string,
): Promise<Result> {
  const record = (outcome: "success" | "failure", detail: string) =>
    ctx.audit.append({
      action,
      ...actorRecord(actor, "viewer"),
      resources: [],
      value: null,
      reason: null,
      outcome,
      detail,
    });
  try {
    const result = await run();
    await record("success", summary(result));
    return result;
  } catch (error) {
    if (isApiError(error) && !isRefusal(error))
      await record("failure", `${error.code}: ${error.message}`);
    throw error;
  }
}

export const createTokenAudited = (
  ctx: TokenRouteDeps,
  actor: Actor,
  body: CreateTokenRequest,
): Promise<CreateTokenResponse> =>
  audited(
    ctx,
    actor,
    "token-create",
    () => ctx.personalTokens.create(actor.principal, body),
    ({ token }) =>
      `token ${token.name} (id ${token.id}) for ${token.grants.map(grantWords).join("; ")}, expires ${new Date(token.expiresAt).toISOString()}`,
  );

export const revokeTokenAudited = async (
  ctx: TokenRouteDeps,
  actor: Actor,
  id: string,
): Promise<RevokeTokenResponse> => {
  const { token, nodes } = await audited(
    ctx,
    actor,
    "token-revoke",
    () => ctx.personalTokens.revoke(actor.principal, id),
    ({ token }) => `token ${token.name} (id ${token.id}) of ${token.ownerLabel} revoked`,
  );
  return { id: token.id, nodes };
};
