import "server-only";
/**
 * The admin credential: a bearer token for scripts, and for browsers a session cookie that proves
 * a login without carrying the token. Sessions are HMACs keyed by the token, so several console
 * replicas accept each other's cookies and changing the token logs everyone out; logouts are kept
 * on the Redis nodes (revocations.ts), so they hold on every replica and after restarts.
 * Every comparison is constant-time.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SESSION_COOKIE = "redlock_console_session";

export type { Principal } from "./identity";

const sha256 = (text: string) => createHash("sha256").update(text).digest();

/** Constant-time equality of two strings of any length (both hashed to 32 bytes first). */
export function safeEqual(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

/**
 * A break-glass sign-in's audit label: a prefix of its random nonce (which proves nothing without
 * the MAC), "break-glass (sign-in 7Q2gyTNM)".
 */
export function sessionLabel(nonce: string): string {
  return `break-glass (sign-in ${nonce.slice(0, 8)})`;
}

/** The bearer admin token's audit label: nothing derived from the token. */
export const BEARER_LABEL = "break-glass (token)";

function sign(adminToken: string, payload: string): string {
  return createHmac("sha256", sha256(`session:${adminToken}`))
    .update(payload)
    .digest("base64url");
}

/** A new session cookie value: `<expiresAt>.<nonce>.<hmac>`. */
export function createSessionValue(
  adminToken: string,
  ttlS: number,
  now = Date.now(),
): { value: string; expiresAt: number } {
  const expiresAt = now + ttlS * 1000;
  const payload = `${expiresAt}.${randomBytes(16).toString("base64url")}`;
  return { value: `${payload}.${sign(adminToken, payload)}`, expiresAt };
}

/** The session's expiry and nonce when the cookie is authentic and unexpired; otherwise null. */
export function verifySessionValue(
  adminToken: string,
  cookie: string,
  now = Date.now(),
): { expiresAt: number; nonce: string } | null {
  const parts = cookie.split(".");
  if (parts.length !== 3) return null;
  const [expiresText, nonce, mac] = parts as [string, string, string];
  if (!safeEqual(mac, sign(adminToken, `${expiresText}.${nonce}`))) return null;
  const expiresAt = Number(expiresText);
  return Number.isFinite(expiresAt) && expiresAt > now ? { expiresAt, nonce } : null;
}

export function readCookie(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

export function sessionCookieHeader(value: string, maxAgeS: number, secure: boolean): string {
  const attributes = [
    `${SESSION_COOKIE}=${value}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Strict",
    `Max-Age=${maxAgeS}`,
  ];
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}
