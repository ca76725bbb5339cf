import "server-only";
/**
 * The two cookies of a sign-in, each `<base64url JSON>.<HMAC-SHA256>`: authentic (nobody without
 * the secret makes one), not secret (the browser may read what it carries; nothing in them is).
 * The key is derived from the settings' cookieSecret (CONSOLE_SIGN_IN_SECRET, else the OIDC client
 * secret), which every replica holds, with a label per cookie so one cannot pass for the other.
 * - the attempt (`redlock_console_sign_in_attempt`, 10 minutes, only sent to the callback): the
 *   PKCE verifier, state and nonce of one sign-in attempt;
 * - the sign-in (`redlock_console_sign_in`): who signed in, their groups, when it ends, and the
 *   person's revocation generation at that time (records.ts).
 */
import { createHmac } from "node:crypto";
import { z } from "zod";
import { safeEqual } from "../credentials";

export const ATTEMPT_COOKIE = "redlock_console_sign_in_attempt";
export const SIGN_IN_COOKIE = "redlock_console_sign_in";
export const ATTEMPT_TTL_S = 600;
export const CALLBACK_PATH = "/api/auth/callback";

export const attemptSchema = z.object({
  state: z.string(),
  nonce: z.string(),
  verifier: z.string(),
  /** The console path to return to after the sign-in. */
  next: z.string(),
  expiresAt: z.number(),
});
export type Attempt = z.infer<typeof attemptSchema>;

export const signInSchema = z.object({
  /** Random id: what a sign-out revokes. */
  id: z.string(),
  issuer: z.string(),
  subject: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  groups: z.array(z.string()),
  issuedAt: z.number(),
  expiresAt: z.number(),
  /** The person's revocation generation when they signed in (records.ts). */
  generation: z.number().int().nonnegative(),
});
export type SignIn = z.infer<typeof signInSchema>;

type Purpose = "attempt" | "sign-in";

function keyFor(secret: string, purpose: Purpose): Buffer {
  return createHmac("sha256", secret).update(`redlock-console ${purpose} cookie v1`).digest();
}

function mac(secret: string, purpose: Purpose, payload: string): string {
  return createHmac("sha256", keyFor(secret, purpose)).update(payload).digest("base64url");
}

export function seal(secret: string, purpose: Purpose, value: Attempt | SignIn): string {
  const payload = Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${payload}.${mac(secret, purpose, payload)}`;
}

/** The cookie's content when authentic and unexpired; otherwise null. */
export function unseal<T extends { expiresAt: number }>(
  secret: string,
  purpose: Purpose,
  schema: z.ZodType<T>,
  cookie: string | undefined,
  nowMs = Date.now(),
): T | null {
  const [payload, signature, extra] = (cookie ?? "").split(".");
  if (!payload || !signature || extra !== undefined) return null;
  if (!safeEqual(signature, mac(secret, purpose, payload))) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(payload, "base64url").toString()));
    return parsed.success && parsed.data.expiresAt > nowMs ? parsed.data : null;
  } catch {
    return null;
  }
}

export interface CookieOptions {
  readonly path: string;
  readonly maxAgeS: number;
  readonly secure: boolean;
}

/**
 * SameSite=Lax, not Strict: the provider sends the browser back to the callback from its own site,
 * and a Strict cookie would be withheld there and on the first page after it. Requests that change
 * state are refused without a same-origin Origin header anyway (guard.ts).
 */
export function cookieHeader(name: string, value: string, options: CookieOptions): string {
  const attributes = [
    `${name}=${value}`,
    `Path=${options.path}`,
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${options.maxAgeS}`,
  ];
  if (options.secure) attributes.push("Secure");
  return attributes.join("; ");
}
