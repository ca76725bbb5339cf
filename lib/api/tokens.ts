/**
 * Personal tokens: a signed-in person's credential for scripts, with a role and scope within the
 * person's own and an expiry. `POST /api/tokens` creates one (its secret is in that answer only),
 * `GET /api/tokens` lists them with their last use, `DELETE /api/tokens/{id}` revokes one.
 */
import { z } from "zod";
import { epochMsSchema, nodeIdSchema } from "./common";

/** Every personal token's secret starts so: a scanner (or a person) tells it apart from others. */
export const PERSONAL_TOKEN_PREFIX = "rlc_";

/** A token's name: what the audit says ("… via token ci-unlock"), so plain words only. */
export const tokenNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
  );

/** A token's id: the public half of its secret (`rlc_<id>_<secret>`), 16 hex digits. */
export const tokenIdSchema = z.string().regex(/^[0-9a-f]{16}$/, "must be 16 hex digits");

const roleSchema = z.enum(["viewer", "operator", "admin"]);

/** One role with its own scope, as CONSOLE_RBAC's rules pair them (null / absent: everything). */
export const tokenGrantRequestSchema = z.strictObject({
  role: roleSchema,
  /** Redis globs on the resource name; absent: every resource (only if the person's grant has it). */
  resources: z.array(z.string().min(1).max(1024)).min(1).max(100).optional(),
  /** Owner `service` labels; absent: every service (only if the person's grant has it). */
  services: z.array(z.string().min(1).max(256)).min(1).max(100).optional(),
});
export type TokenGrantRequest = z.infer<typeof tokenGrantRequestSchema>;

export const createTokenRequestSchema = z.strictObject({
  name: tokenNameSchema,
  /** Each must lie within one of the person's own grants (the same role-and-scope pairing). */
  grants: z.array(tokenGrantRequestSchema).min(1).max(10),
  /** Until expiry, in hours; at most CONSOLE_TOKEN_MAX_TTL_DAYS × 24. */
  expiresInHours: z.number().int("must be a whole number of hours").min(1).max(87_600),
});
export type CreateTokenRequest = z.infer<typeof createTokenRequestSchema>;

export const tokenOwnerSchema = z.object({
  subject: z.string(),
  issuer: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
});

export const tokenSchema = z.object({
  id: tokenIdSchema,
  name: tokenNameSchema,
  owner: tokenOwnerSchema,
  /** "Alice Oncall <alice@example.com>". */
  ownerLabel: z.string(),
  grants: z.array(
    z.object({
      role: roleSchema,
      resources: z.array(z.string()).nullable(),
      services: z.array(z.string()).nullable(),
      /** The person's rule the grant was taken within. */
      rule: z.string(),
    }),
  ),
  createdAt: epochMsSchema,
  expiresAt: epochMsSchema,
  /** To the minute (LAST_USE_RESOLUTION_MS); null: never used. */
  lastUsedAt: epochMsSchema.nullable(),
});
export type PersonalToken = z.infer<typeof tokenSchema>;

export const createTokenResponseSchema = z.object({
  token: tokenSchema,
  /** `rlc_<id>_<secret>`: shown in this answer only; the console keeps a hash of it. */
  secret: z.string(),
  /** Nodes that stored the token (a majority at least). */
  nodes: z.array(nodeIdSchema),
});
export type CreateTokenResponse = z.infer<typeof createTokenResponseSchema>;

export const tokensQuerySchema = z.strictObject({
  /** Admins: every person's tokens ("all"); everyone else sees their own. @default "mine" */
  owner: z.enum(["mine", "all"]).default("mine"),
});

export const tokensResponseSchema = z.object({
  serverTime: epochMsSchema,
  tokens: z.array(tokenSchema),
  /** The caller may revoke every token listed (an admin), not only their own. */
  canRevokeOthers: z.boolean(),
  /** The longest expiry a new token may have, in hours (CONSOLE_TOKEN_MAX_TTL_DAYS × 24). */
  maxExpiresInHours: z.number(),
  unreachableNodes: z.array(nodeIdSchema),
});
export type TokensResponse = z.infer<typeof tokensResponseSchema>;

export const revokeTokenResponseSchema = z.object({
  id: tokenIdSchema,
  /** Nodes on which the record is now gone (a majority at least). */
  nodes: z.array(nodeIdSchema),
});
export type RevokeTokenResponse = z.infer<typeof revokeTokenResponseSchema>;
