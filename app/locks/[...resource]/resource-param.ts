/**
 * The route segment as the resource name. Links encode it with encodeURIComponent; Next.js hands the
 * segment over still percent-encoded, so it is decoded exactly once here.
 */
export function resourceFromParam(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // A hand-typed URL with a stray "%": take it literally rather than failing the page.
    return segment;
  }
}
