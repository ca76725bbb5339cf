/**
 * The kinds of environment variable the console reads (booleans, bounded integers, lists, Redis
 * URLs, the admin token), each a zod schema with a message that says how to fix a bad value.
 * Plain module (no "server-only"): scripts/start.ts validates the environment with it too.
 */
import { z } from "zod";
export const booleanVar = z
  .enum(["true", "false", "1", "0", "yes", "no", "on", "off", ""], {
    error: "must be true or false",
  })
  .transform((text) => ["true", "1", "yes", "on"].includes(text));

export const integerVar = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

export const listVar = z
  .string({ error: "is required: a comma-separated list" })
  .transform((text) =>
    text
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

export const redisUrl = z.string().refine((text) => {
  try {
    const url = new URL(text);
    return (url.protocol === "redis:" || url.protocol === "rediss:") && url.hostname.length > 0;
  } catch {
    return false;
  }
}, "each entry must be a redis:// or rediss:// URL with a host");

/** The values `cluster=` takes in a REDLOCK_NODES entry's query, and what each says. */
const CLUSTER_FLAG: ReadonlyMap<string, boolean> = new Map([
  ["true", true],
  ["1", true],
  ["yes", true],
  ["false", false],
  ["0", false],
  ["no", false],
]);

/** `cluster=` of an entry: absent (null), a flag, or undefined for a value that is none. */
const clusterFlagOf = (url: URL): boolean | null | undefined => {
  const flag = url.searchParams.get("cluster");
  return flag === null ? null : CLUSTER_FLAG.get(flag.toLowerCase());
};

/** True when a REDLOCK_NODES entry names a Redis Cluster: `cluster=true` (or 1, yes) in its query. */
export const isClusterUrl = (url: string): boolean => clusterFlagOf(new URL(url)) === true;

/** `?cluster=true` marks a Redis Cluster (node-registry.ts); a cluster has no database but 0. */
export const nodeUrl = redisUrl.refine((text) => {
  if (!URL.canParse(text)) return true; // redisUrl has said so already
  const url = new URL(text);
  const flag = clusterFlagOf(url);
  if (flag === null) return true;
  return flag !== undefined && ["", "/", "/0"].includes(url.pathname);
}, "cluster= must be true or false, and a cluster URL selects no database (a cluster has db 0 only)");

/** Shortest admin token accepted: 32 hex digits carry 128 random bits. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;
const MIN_ADMIN_TOKEN_DISTINCT_CHARS = 12;
export const TOKEN_HINT = "generate one with `openssl rand -hex 32`";

/**
 * The admin token must look random: long, varied characters, at least 128 bits by the size of the
 * alphabet it uses. The audit trail shows no fingerprint of it, but a short or human-chosen token
 * still falls to guessing (the limiter slows one client, not a botnet). Only the shape can be
 * checked: a long passphrase passes, so prefer the generated kind.
 */
export const adminTokenSchema = z
  .string()
  .max(512, "must be at most 512 characters")
  .superRefine((token, context) => {
    const distinct = new Set(token).size;
    const alphabet =
      (/[a-z]/.test(token) ? 26 : 0) +
      (/[A-Z]/.test(token) ? 26 : 0) +
      (/[0-9]/.test(token) ? 10 : 0) +
      (/[^a-zA-Z0-9]/.test(token) ? 32 : 0);
    const bits = token.length * Math.log2(Math.max(alphabet, 2));
    if (
      token.length < MIN_ADMIN_TOKEN_LENGTH ||
      distinct < MIN_ADMIN_TOKEN_DISTINCT_CHARS ||
      bits < 128
    ) {
      context.addIssue({
        code: "custom",
        message: `is too weak: it must be a random secret of at least ${MIN_ADMIN_TOKEN_LENGTH} characters with at least ${MIN_ADMIN_TOKEN_DISTINCT_CHARS} different ones (this one has ${token.length}, ${distinct} different); ${TOKEN_HINT}`,
      });
    }
  });
