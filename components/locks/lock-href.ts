import { keyParamFor } from "@/lib/api";

/** A lock page's address; a key that is not UTF-8 (or very long) is opened by its bytes: `?key=<base64url>`. */
export function lockHref(resource: string, resourceBase64?: string): string {
  const key = keyParamFor(resource, resourceBase64);
  if (key === undefined) return `/locks/${encodeURIComponent(resource)}`;
  return `/locks/${encodeURIComponent(resource.slice(0, 64))}?key=${key}`;
}
