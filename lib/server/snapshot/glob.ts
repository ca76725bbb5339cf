/**
 * Redis MATCH-style glob (`*`, `?`, `[abc]`, `[^a-z]`, `\x`) without regular expressions: the classic
 * two-pointer matcher runs in O(pattern × text) however many stars a pattern has, so a hostile
 * pattern cannot make the server backtrack for seconds.
 */

/** Length of the class starting at pattern[start] === "[" and whether `char` is in it. */
function matchClass(
  pattern: readonly string[],
  start: number,
  char: string,
): { matched: boolean; end: number } {
  let index = start + 1;
  const negated = pattern[index] === "^";
  if (negated) index += 1;
  let matched = false;
  while (index < pattern.length && pattern[index] !== "]") {
    if (pattern[index] === "\\" && index + 1 < pattern.length) index += 1;
    const low = pattern[index]!;
    if (pattern[index + 1] === "-" && index + 2 < pattern.length && pattern[index + 2] !== "]") {
      const high = pattern[index + 2]!;
      if ((low <= char && char <= high) || (high <= char && char <= low)) matched = true;
      index += 3;
    } else {
      if (low === char) matched = true;
      index += 1;
    }
  }
  return { matched: matched !== negated, end: index };
}

/** Does `text` match the glob `pattern`? */
export function globMatch(glob: string, text: string): boolean {
  const pattern = [...glob];
  const chars = [...text];
  let p = 0;
  let t = 0;
  let starP = -1;
  let starT = 0;
  while (t < chars.length) {
    const token = pattern[p];
    const char = chars[t]!;
    if (token === "*") {
      starP = p++;
      starT = t;
      continue;
    }
    let step = 0;
    if (token === "?") step = 1;
    else if (token === "[") {
      const { matched, end } = matchClass(pattern, p, char);
      if (matched) step = end + 1 - p;
    } else if (token === "\\" && p + 1 < pattern.length) {
      if (pattern[p + 1] === char) step = 2;
    } else if (token !== undefined && token === char) step = 1;
    if (step > 0) {
      p += step;
      t += 1;
    } else if (starP >= 0) {
      p = starP + 1;
      t = ++starT;
    } else return false;
  }
  while (pattern[p] === "*") p += 1;
  return p === pattern.length;
}
