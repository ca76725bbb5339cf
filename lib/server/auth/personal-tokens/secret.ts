/**
 * A personal token's secret: `rlc_<id>_<secret>`, where the id (16 hex digits) names the record and
 * the secret is 32 random bytes. The console keeps only the SHA-256 of the whole string: with 256
 * random bits a fast hash is enough (nothing to guess), and a slow one would cost every request.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { PERSONAL_TOKEN_PREFIX } from "@/lib/api";

const SECRET_SHAPE = /^rlc_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export function newSecret(): { id: string; secret: string } {
  const id = randomBytes(8).toString("hex");
  return { id, secret: `${PERSONAL_TOKEN_PREFIX}${id}_${randomBytes(32).toString("base64url")}` };
}

/** The record's id when `text` has a personal token's shape; null otherwise. */
export function idOfSecret(text: string): string | null {
  return SECRET_SHAPE.exec(text)?.[1] ?? null;
}

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("base64url");
}

/** Constant-time: a stored hash is compared with the hash of what was presented. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashSecret(secret));
  const stored = Buffer.from(storedHash);
  return given.length === stored.length && timingSafeEqual(given, stored);
}
