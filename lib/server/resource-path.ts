import "server-only";
/**
 * The resource of `GET /api/locks/{resource}`, taken from the raw request path and percent-decoded
 * to bytes ourselves, so "/" and any UTF-8 round-trip with encodeURIComponent. A key whose bytes
 * are not UTF-8 is named by its base64 with `?encoding=base64` (proxy.ts answers 400 to such raw
 * bytes, since Next.js's router cannot decode them).
 */
import { MAX_RESOURCE_BYTES, RESERVED_PREFIX } from "@/lib/api";
import { ApiError } from "./errors";

const PREFIX = "/api/locks/";

function percentDecodeBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let index = 0; index < text.length; index += 1) {
    if (text[index] === "%") {
      const hex = text.slice(index + 1, index + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex))
        throw new ApiError("invalid_request", "Invalid path: resource: malformed percent-encoding");
      bytes.push(parseInt(hex, 16));
      index += 2;
    } else {
      const codePoint = text.codePointAt(index)!;
      const char = String.fromCodePoint(codePoint);
      bytes.push(...Buffer.from(char, "utf8"));
      index += char.length - 1;
    }
  }
  return Buffer.from(bytes);
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** `?encoding=base64`: the path segment is the key's bytes in base64 (or base64url). */
function decodeBase64Segment(segment: string): Buffer {
  if (!BASE64.test(segment)) {
    throw new ApiError(
      "invalid_request",
      "Invalid path: resource: is not base64 (encoding=base64)",
    );
  }
  return Buffer.from(segment.replace(/-/g, "+").replace(/_/g, "/"), "base64");
}

export function resourceFromPath(request: Request): Buffer {
  const url = new URL(request.url);
  const start = url.pathname.indexOf(PREFIX);
  const segment = percentDecodeBytes(start === -1 ? "" : url.pathname.slice(start + PREFIX.length));
  const encoding = url.searchParams.get("encoding");
  if (encoding !== null && encoding !== "base64") {
    throw new ApiError("invalid_request", "Invalid query: encoding: must be base64 when given");
  }
  const key = encoding === "base64" ? decodeBase64Segment(segment.toString("latin1")) : segment;
  return assertLockKey(key, "Invalid path: resource");
}

/** A key given as bytes (path or base64 body field): non-empty, bounded, not an auxiliary key. */
export function assertLockKey(key: Buffer, where: string): Buffer {
  if (key.length === 0) throw new ApiError("invalid_request", `${where}: must not be empty`);
  if (key.length > MAX_RESOURCE_BYTES) {
    throw new ApiError("invalid_request", `${where}: must be at most ${MAX_RESOURCE_BYTES} bytes`);
  }
  if (key.subarray(0, RESERVED_PREFIX.length).toString("latin1") === RESERVED_PREFIX) {
    throw new ApiError(
      "reserved_resource",
      `Keys under "${RESERVED_PREFIX}" are auxiliary, never locks.`,
    );
  }
  return key;
}
