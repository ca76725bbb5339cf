/**
 * Addressing a lock by its exact bytes: keys that are not valid UTF-8, or too long for a readable
 * URL path, travel as base64url (`/api/locks/{base64url}?encoding=base64`, `/locks/…?key=`).
 * Plain code, no server imports: the browser bundles this file.
 */

/** Longest percent-encoded name a link puts in its path; longer names go by base64url. */
export const MAX_PATH_NAME_CHARS = 2048;

export function base64ToBase64Url(base64: string): string {
  return base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function utf8ToBase64Url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return base64ToBase64Url(btoa(binary));
}

/** The key's base64url when it must be addressed by bytes; undefined when its name will do. */
export function keyParamFor(resource: string, resourceBase64?: string): string | undefined {
  if (resourceBase64) return base64ToBase64Url(resourceBase64);
  return encodeURIComponent(resource).length > MAX_PATH_NAME_CHARS
    ? utf8ToBase64Url(resource)
    : undefined;
}
