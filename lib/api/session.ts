/**
 * `GET /api/session`: who is signed in (the person, the credential, the role and its scopes).
 * `POST/DELETE /api/session`: a sign-in with the break-glass admin token, and its sign-out.
 * ("Session" in these paths is historical: a person's login is a sign-in; a session is a holder's.)
 */
import { z } from "zod";
import { epochMsSchema } from "./common";

export const loginRequestSchema = z.strictObject({
  token: z.string().min(1, "must not be empty").max(512, "must be at most 512 characters"),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

export const sessionResponseSchema = z.object({
  /** The request carries a valid admin credential (cookie or bearer). */
  authenticated: z.boolean(),
  /** Epoch ms at which the sign-in ends; null without one (or for the bearer token). */
  expiresAt: epochMsSchema.nullable(),
  /** CONSOLE_READ_ONLY: state-changing routes are refused for everyone. */
  readOnly: z.boolean(),
  /** Read routes answer without a credential. */
  publicRead: z.boolean(),
  /** authenticated && !readOnly: the UI may offer acquire/extend/release/force-release. */
  canWrite: z.boolean(),
  /** How the request proved who it is; null when it did not. */
  credential: z.enum(["sign-in", "proxy", "personal-token", "break-glass"]).nullable(),
  /** The signed-in person; null when anonymous or for the break-glass admin token (nobody). */
  person: z
    .object({
      subject: z.string(),
      issuer: z.string(),
      name: z.string().nullable(),
      email: z.string().nullable(),
      groups: z.array(z.string()),
    })
    .nullable(),
  /** The highest role any grant gives; null without one. */
  role: z.enum(["viewer", "operator", "admin"]).nullable(),
  /** Each rule's role with its own scope (null: every resource / every service). */
  grants: z.array(
    z.object({
      role: z.enum(["viewer", "operator", "admin"]),
      resources: z.array(z.string()).nullable(),
      services: z.array(z.string()).nullable(),
      rule: z.string(),
    }),
  ),
  /** Sign-in with OpenID Connect: the provider's name for "Sign in with …"; null when not set up. */
  signIn: z.object({ providerName: z.string(), loginUrl: z.string() }).nullable(),
  /** CONSOLE_BREAK_GLASS: the shared admin token is accepted. */
  breakGlassEnabled: z.boolean(),
  /** For admins only: the latest use of the break-glass token on any replica within a day. */
  breakGlassLastUse: z.object({ at: epochMsSchema, label: z.string() }).nullable(),
});
export type SessionResponse = z.infer<typeof sessionResponseSchema>;
