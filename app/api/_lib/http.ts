import "server-only";
/**
 * Request parsing shared by the route handlers: JSON bodies (content type, size limit, syntax,
 * schema) and query strings, each failure a typed 4xx ApiError that names every bad field.
 */
import type { z } from "zod";
import { MAX_BODY_BYTES } from "@/lib/api";
import { ApiError } from "@/lib/server/errors";

/** "resources[0]: must not be empty; ttlMs: must be at least 100 ms". */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((issue) => {
      const path = issue.path
        .map((part, index) =>
          typeof part === "number" ? `[${part}]` : `${index ? "." : ""}${String(part)}`,
        )
        .join("");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

export function parseWith<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success)
    throw new ApiError("invalid_request", `Invalid ${what}: ${describeIssues(result.error)}`);
  return result.data;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads at most `maxBytes` of the body; refuses (413) as soon as it grows past that. */
async function readLimited(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  const tooLarge = () =>
    new ApiError("payload_too_large", `The body must be at most ${maxBytes} bytes.`);
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  try {
    return strictUtf8.decode(Buffer.concat(chunks));
  } catch {
    // The default decoder would turn bad bytes into U+FFFD and act on a different key than sent.
    throw new ApiError("invalid_json", "The body is not valid UTF-8.");
  }
}

/** A state-changing request's JSON body, validated by `schema`. */
export async function readJsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
  maxBytes = MAX_BODY_BYTES,
): Promise<z.infer<S>> {
  const contentType = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (contentType !== "application/json") {
    throw new ApiError(
      "unsupported_media_type",
      "The body must be JSON, sent with Content-Type: application/json.",
    );
  }
  const text = await readLimited(request, maxBytes);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_json", "The body is not valid JSON.");
  }
  return parseWith(schema, body, "request body");
}

/** The query string as an object (a repeated key keeps its last value), validated by `schema`. */
export function readQuery<S extends z.ZodType>(request: Request, schema: S): z.infer<S> {
  const params = Object.fromEntries(new URL(request.url).searchParams.entries());
  return parseWith(schema, params, "query");
}
