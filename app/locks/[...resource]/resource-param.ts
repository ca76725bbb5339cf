/**
 * The resource name from the catch-all route segments. Links build the path with
 * encodeURIComponent, so a "/" inside a name arrives as %2F and the name is one segment; a
 * hand-typed "a/b" arrives as two segments and is joined back. Next.js hands the segments over
 * still percent-encoded, so each is decoded exactly once here (e2e/lock-detail.spec.ts checks a
 * name containing "%41", which a second decode would turn into "A").
 */
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
