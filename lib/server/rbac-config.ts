/**
 * CONSOLE_RBAC: who gets which role, from the groups the identity provider (or the authenticating
 * proxy) names. One JSON array, e.g.
 * `[{"group":"payments-oncall","role":"operator","services":["payments"]},
 *   {"group":"sre","role":"admin"}, {"group":"everyone","role":"viewer"}]`.
 * A rule's role and its scope (resource globs, owner `service` labels) stay paired: auth/rbac.ts
 * turns each matching rule into one grant. Plain zod, no server-only: scripts/start.ts parses it too.
 */
import { z } from "zod";

const ROLE_NAMES = ["viewer", "operator", "admin"] as const;

export const rbacRuleSchema = z.strictObject({
  group: z.string().min(1, "group: must not be empty").max(256),
  role: z.enum(ROLE_NAMES, { error: "role: viewer, operator or admin" }),
  /** Redis globs on the resource name (orders:*); absent: every resource. */
  resources: z.array(z.string().min(1).max(1024)).min(1).max(100).optional(),
  /** Owner `service` labels of the holder; absent: every service. */
  services: z.array(z.string().min(1).max(256)).min(1).max(100).optional(),
});
export type RbacRule = z.infer<typeof rbacRuleSchema>;

export const rbacVar = z
  .string()
  .transform((text, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({ code: "custom", message: "must be a JSON array of rules" });
      return z.NEVER;
    }
  })
  .pipe(z.array(rbacRuleSchema).max(1_000, "at most 1,000 rules"));

/** CONSOLE_RBAC_DEFAULT_ROLE: the role of a signed-in person no rule names. */
export const rbacDefaultRoleVar = z.enum(["viewer", "none"], {
  error: 'must be "viewer" or "none"',
});
