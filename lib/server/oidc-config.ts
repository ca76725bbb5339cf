/**
 * The sign-in settings (OpenID Connect) and break-glass switch: CONSOLE_OIDC_*, CONSOLE_PUBLIC_URL,
 * CONSOLE_SIGN_IN_*, CONSOLE_BREAK_GLASS. Plain zod, no server-only: scripts/start.ts parses them too.
 */
import { z } from "zod";

/** The settings the sign-in needs, all present or all absent (then there is no sign-in). */
export interface OidcSettings {
  /** The provider's issuer URL, exactly as its discovery document names it. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The console's own address as browsers reach it, without a trailing slash. */
  readonly publicUrl: string;
  /** `${publicUrl}/api/auth/callback`, registered at the provider. */
  readonly redirectUri: string;
  readonly scopes: string;
  /** The claim (ID token, else userinfo) that lists the person's groups. */
  readonly groupsClaim: string;
  /** "Sign in with <providerName>" on the login page. */
  readonly providerName: string;
  /**
   * The secret the sign-in cookies are HMAC'd with, shared by every replica: CONSOLE_SIGN_IN_SECRET,
   * else CONSOLE_OIDC_CLIENT_SECRET (which every replica holds anyway).
   */
  readonly cookieSecret: string;
}

export const DEFAULT_OIDC_SCOPES = "openid profile email groups";

const LOOPBACK = /^(127(?:\.\d{1,3}){3}|localhost|\[::1\])$/;

/** An https URL, or http on a loopback address only (a local development provider). */
export const issuerUrl = z.url().refine((text) => {
  const url = new URL(text);
  return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.test(url.hostname));
}, "must be an https:// URL (http:// only on a loopback address such as 127.0.0.1)");

export const publicUrl = z
  .url()
  .refine((text) => ["http:", "https:"].includes(new URL(text).protocol), "must be http(s)://")
  .refine((text) => !new URL(text).search && !new URL(text).hash, "must have no ?query or #hash")
  .transform((text) => text.replace(/\/+$/, ""));

export const oidcVars = {
  CONSOLE_OIDC_ISSUER: issuerUrl.optional(),
  CONSOLE_OIDC_CLIENT_ID: z.string().min(1).max(512).optional(),
  CONSOLE_OIDC_CLIENT_SECRET: z.string().min(1).max(1024).optional(),
  CONSOLE_PUBLIC_URL: publicUrl.optional(),
  CONSOLE_OIDC_SCOPES: z
    .string()
    .max(1024)
    .refine((text) => text.split(/\s+/).includes("openid"), "must include openid")
    .default(DEFAULT_OIDC_SCOPES),
  CONSOLE_OIDC_GROUPS_CLAIM: z.string().min(1).max(256).default("groups"),
  CONSOLE_OIDC_PROVIDER_NAME: z.string().min(1).max(100).optional(),
  CONSOLE_SIGN_IN_SECRET: z
    .string()
    .min(32, "must be a random secret of at least 32 characters")
    .max(1024)
    .optional(),
};

type OidcVars = z.output<z.ZodObject<typeof oidcVars>>;

const REQUIRED_WITH_ISSUER = [
  "CONSOLE_OIDC_CLIENT_ID",
  "CONSOLE_OIDC_CLIENT_SECRET",
  "CONSOLE_PUBLIC_URL",
] as const;

/** Lines naming what is missing when the issuer is set; [] when complete or sign-in is off. */
export function missingOidcVars(vars: Record<string, string | undefined>): string[] {
  if (vars.CONSOLE_OIDC_ISSUER === undefined) return [];
  return REQUIRED_WITH_ISSUER.filter((name) => vars[name] === undefined).map(
    (name) => `  ${name}: is required with CONSOLE_OIDC_ISSUER`,
  );
}

export function oidcSettingsOf(vars: OidcVars): OidcSettings | null {
  const { CONSOLE_OIDC_ISSUER: issuer, CONSOLE_OIDC_CLIENT_ID: clientId } = vars;
  const { CONSOLE_OIDC_CLIENT_SECRET: clientSecret, CONSOLE_PUBLIC_URL: publicUrl } = vars;
  if (!issuer || !clientId || !clientSecret || !publicUrl) return null;
  return {
    issuer,
    clientId,
    clientSecret,
    publicUrl,
    redirectUri: `${publicUrl}/api/auth/callback`,
    scopes: vars.CONSOLE_OIDC_SCOPES.trim().split(/\s+/).join(" "),
    groupsClaim: vars.CONSOLE_OIDC_GROUPS_CLAIM,
    providerName: vars.CONSOLE_OIDC_PROVIDER_NAME ?? new URL(issuer).host,
    cookieSecret: vars.CONSOLE_SIGN_IN_SECRET ?? clientSecret,
  };
}
