import { MAX_RESOURCE_BASE64_LENGTH } from "@/lib/api";

/**
 * The resource name from the catch-all route segments. Links build the path with
 * encodeURIComponent, so a "/" inside a name arrives as %2F and the name is one segment; a
 * hand-typed "a/b" arrives as two segments and is joined back. Next.js hands the segments over
 * still percent-encoded, so each is decoded exactly once here (e2e/lock-detail.spec.ts checks a
 * name containing "%41", which a second decode would turn into "A").
 */
/**
 * The page's `?key=` (the key's bytes in base64url, for keys that are not UTF-8 or too long for a
 * path), validated; undefined when absent or malformed (the path's name is used then).
 */
export function keyParam(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" &&
    value.length <= MAX_RESOURCE_BASE64_LENGTH &&
    /^[A-Za-z0-9_-]+$/.test(value)
    ? value
    : undefined;
}

export function resourceFromSegments(segments: string[]): string {
  return segments
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        // A stray "%" in a hand-typed URL: take it literally rather than failing the page.
        return segment;
      }
    })
    .join("/");
}
