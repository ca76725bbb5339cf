/**
 * Sign-in with OpenID Connect: `GET /api/auth/login` (to the provider), `GET /api/auth/callback`
 * (back from it), `POST /api/auth/sign-out`, and the admins' `POST /api/sign-ins/revoke`.
 */
import { z } from "zod";
import { MAX_REASON_LENGTH, MIN_REASON_LENGTH } from "./actions";

/** Why a sign-in did not happen: `/login?sign_in_error=<code>&detail=<the check that failed>`. */
export const SIGN_IN_FAILURES = [
  "not_configured",
  "provider_unreachable",
  "refused",
  "provider_said_no",
  "attempt_expired",
  "nodes_unavailable",
] as const;
export type SignInFailure = (typeof SIGN_IN_FAILURES)[number];

export const signOutResponseSchema = z.object({
  /** The provider's RP-initiated logout URL to send the browser to; null when it offers none. */
  endSessionUrl: z.string().nullable(),
});
export type SignOutResponse = z.infer<typeof signOutResponseSchema>;

export const revokeSignInsRequestSchema = z.strictObject({
  /** The person's `sub` at the provider (GET /api/session and the audit name it). */
  subject: z.string().min(1, "must not be empty").max(512),
  reason: z
    .string()
    .trim()
    .min(MIN_REASON_LENGTH, `must be at least ${MIN_REASON_LENGTH} characters`)
    .max(MAX_REASON_LENGTH, `must be at most ${MAX_REASON_LENGTH} characters`),
});
export type RevokeSignInsRequest = z.infer<typeof revokeSignInsRequestSchema>;

export const revokeSignInsResponseSchema = z.object({
  subject: z.string(),
  issuer: z.string(),
  /** Nodes that stored the revocation: every replica refuses the person's earlier sign-ins. */
  storedOn: z.array(z.string()),
});
export type RevokeSignInsResponse = z.infer<typeof revokeSignInsResponseSchema>;
