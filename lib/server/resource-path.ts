import "server-only";
/**
 * The resource of `GET /api/locks/{resource}`, taken from the raw request path and percent-decoded
 * to bytes ourselves: any key, including "/" and bytes that are not UTF-8, round-trips when encoded
 * with encodeURIComponent (or %XX per byte).
 */
import { MAX_RESOURCE_BYTES, RESERVED_PREFIX } from "@/lib/api";
import { ApiError } from "./errors";

const PREFIX = "/api/locks/";

export function percentDecodeBytes(text: string): Buffer {
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

export function resourceFromPath(request: Request): Buffer {
  const path = new URL(request.url).pathname;
  const start = path.indexOf(PREFIX);
  const encoded = start === -1 ? "" : path.slice(start + PREFIX.length);
  const key = percentDecodeBytes(encoded);
  if (key.length === 0)
    throw new ApiError("invalid_request", "Invalid path: resource: must not be empty");
  if (key.length > MAX_RESOURCE_BYTES) {
    throw new ApiError(
      "invalid_request",
      `Invalid path: resource: must be at most ${MAX_RESOURCE_BYTES} bytes`,
    );
  }
  if (key.subarray(0, RESERVED_PREFIX.length).toString("latin1") === RESERVED_PREFIX) {
    throw new ApiError(
      "reserved_resource",
      `Keys under "${RESERVED_PREFIX}" are auxiliary, never locks.`,
    );
  }
  return key;
}
