/**
 * Building blocks shared by every request and response schema of the HTTP API.
 * Plain zod and the library's browser-safe wire protocol, no server imports: the browser bundles
 * this file.
 */
import { RESERVED_PREFIX } from "@redlock-console/redlock/protocol";
import { z } from "zod";
import { ERROR_CODES } from "./error-codes";

// In the browser the console's CSP has no 'unsafe-eval'; zod would probe `Function("")` to decide
// whether to compile its parsers, which the CSP refuses (and reports). Tell it not to try.
if (typeof window !== "undefined") z.config({ jitless: true });

/** Auxiliary keys of the library (fencing counters, probe, audit stream) live here; never a lock. */
export { RESERVED_PREFIX };
/**
 * Longest resource name accepted, in bytes: in bodies, in paths, and as base64. A bound (keys are
 * read and compared whole), but one that fits a key's base64 in a URL under Node's 16 KB limit.
 * Longer keys are never listed (issue 49 row 9: a listing counts them skipped): the console lists
 * only the locks it can open and act on.
 */
export const MAX_RESOURCE_BYTES = 8192;
/** Longest base64 text of a resource name (MAX_RESOURCE_BYTES bytes, padded). */
export const MAX_RESOURCE_BASE64_LENGTH = Math.ceil(MAX_RESOURCE_BYTES / 3) * 4;
/** Most resources in one multi-resource lock. */
export const MAX_RESOURCES_PER_LOCK = 32;
/** Shortest TTL accepted: below it, clock drift and round trips eat the whole validity. */
export const MIN_TTL_MS = 100;
/** Longest TTL accepted (one day): a longer lock is a configuration mistake. */
export const MAX_TTL_MS = 86_400_000;
/** Longest lock value accepted (values of foreign clients vary; ours are 40 hex chars). */
export const MAX_VALUE_LENGTH = 512;
/** Largest request body accepted by any route, in bytes. */
export const MAX_BODY_BYTES = 16 * 1024;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** A resource (lock key) name as typed by a person or a script: non-empty, well-formed, bounded. */
export const resourceNameSchema = z
  .string()
  .min(1, "must not be empty")
  .refine((name) => !LONE_SURROGATE.test(name), "must be well-formed Unicode")
  .refine(
    (name) => utf8Length(name) <= MAX_RESOURCE_BYTES,
    `must be at most ${MAX_RESOURCE_BYTES} UTF-8 bytes`,
  );

export const resourceListSchema = z
  .array(resourceNameSchema)
  .min(1, "must list at least one resource")
  .max(MAX_RESOURCES_PER_LOCK, `must list at most ${MAX_RESOURCES_PER_LOCK} resources`)
  .refine((names) => new Set(names).size === names.length, "must not repeat a resource");

/** A lock TTL in whole milliseconds. */
export const ttlMsSchema = z
  .number()
  .int("must be a whole number of milliseconds")
  .min(MIN_TTL_MS, `must be at least ${MIN_TTL_MS} ms`)
  .max(MAX_TTL_MS, `must be at most ${MAX_TTL_MS} ms`);

/** A lock value (the holder's random token). */
export const lockValueSchema = z
  .string()
  .min(1, "must not be empty")
  .max(MAX_VALUE_LENGTH, `must be at most ${MAX_VALUE_LENGTH} characters`);

/** Epoch milliseconds. */
export const epochMsSchema = z.number();

/** Stable id of a configured node: "node-1" … "node-N", in REDLOCK_NODES order. */
export const nodeIdSchema = z.string();

/** `host:port` of a node; never carries a password. */
export const nodeAddressSchema = z.string();

export const errorCodeSchema = z.enum(ERROR_CODES);

/** Every non-2xx answer: `{ error: { code, message, details? } }`. */
export const errorBodySchema = z.object({
  error: z.object({
    code: errorCodeSchema,
    message: z.string(),
    /** Extra context, e.g. per-node votes of a refused acquire. */
    details: z.unknown().optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** One node's answer in one attempt of acquire/extend/release. */
export const nodeVoteSchema = z.object({
  nodeId: nodeIdSchema,
  address: nodeAddressSchema,
  vote: z.enum(["for", "against"]),
  latencyMs: z.number(),
  /** Why the node voted against (timeout, held by another value, connection error). */
  error: z.string().optional(),
});
export type NodeVote = z.infer<typeof nodeVoteSchema>;

/** One attempt of an operation across all nodes. */
export const attemptSchema = z.object({
  membershipSize: z.number().int(),
  quorumSize: z.number().int(),
  votesFor: z.number().int(),
  votes: z.array(nodeVoteSchema),
});
export type Attempt = z.infer<typeof attemptSchema>;
