/**
 * Redis MATCH-style glob (`*`, `?`, `[abc]`, `[^a-z]`, `\x`) without regular expressions and without
 * backtracking. The pattern is compiled once into a set of states (one per position after each
 * token, consecutive stars merged) and a text is run through all of them at once, bit-parallel:
 * each character costs ceil(states / 32) word operations, so a match is linear in the text however
 * many stars and `?` the pattern has. (The two-pointer matcher it replaces was O(pattern × text)
 * per key: `*` + 40 `?` + `X` cost 1.7 s of CPU on 50,000 keys.)
 */

type Token = { readonly star: true } | { readonly star: false; test(char: string): boolean };

/** The class starting at pattern[start] === "[": a test of one character and where it ends. */
function parseClass(pattern: readonly string[], start: number): { token: Token; end: number } {
  let index = start + 1;
  const negated = pattern[index] === "^";
  if (negated) index += 1;
  const ranges: Array<readonly [string, string]> = [];
  while (index < pattern.length && pattern[index] !== "]") {
    if (pattern[index] === "\\" && index + 1 < pattern.length) index += 1;
    const low = pattern[index]!;
    if (pattern[index + 1] === "-" && index + 2 < pattern.length && pattern[index + 2] !== "]") {
      const high = pattern[index + 2]!;
      ranges.push(low <= high ? [low, high] : [high, low]);
      index += 3;
    } else {
      ranges.push([low, low]);
      index += 1;
    }
  }
  const test = (char: string) =>
    ranges.some(([low, high]) => low <= char && char <= high) !== negated;
  // An unterminated class runs to the end of the pattern, as in Redis.
  return { token: { star: false, test }, end: index };
}

function tokenize(glob: string): Token[] {
  const pattern = [...glob];
  const tokens: Token[] = [];
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index]!;
    if (char === "*") {
      if (!tokens.at(-1)?.star) tokens.push({ star: true });
    } else if (char === "?") {
      tokens.push({ star: false, test: () => true });
    } else if (char === "[") {
      const { token, end } = parseClass(pattern, index);
      tokens.push(token);
      index = end;
    } else {
      const literal = char === "\\" && index + 1 < pattern.length ? pattern[++index]! : char;
      tokens.push({ star: false, test: (other) => other === literal });
    }
  }
  return tokens;
}

/** Distinct characters whose advance masks are kept; a text of many others recomputes them. */
const MASK_CACHE_LIMIT = 4_096;

/** A compiled glob: `matches(text)` costs O(text length × ceil(pattern tokens / 32)). */
export function compileGlob(glob: string): (text: string) => boolean {
  const tokens = tokenize(glob);
  const stateCount = tokens.length + 1; // state j: the first j tokens are matched
  const words = Math.ceil(stateCount / 32);
  const starMask = new Uint32Array(words);
  tokens.forEach((token, index) => {
    if (token.star) starMask[index >>> 5]! |= 1 << (index & 31);
  });
  const acceptWord = tokens.length >>> 5;
  const acceptBit = 1 << (tokens.length & 31);
  const advanceMasks = new Map<string, Uint32Array>();
  /** Bit j set: token j is not a star and consumes `char` (state j -> j + 1). */
  const advanceMask = (char: string) => {
    let mask = advanceMasks.get(char);
    if (mask) return mask;
    mask = new Uint32Array(words);
    tokens.forEach((token, index) => {
      if (!token.star && token.test(char)) mask![index >>> 5]! |= 1 << (index & 31);
    });
    if (advanceMasks.size >= MASK_CACHE_LIMIT) advanceMasks.clear();
    advanceMasks.set(char, mask);
    return mask;
  };
  const current = new Uint32Array(words);
  /** A star at j also lets j + 1 start (it matched nothing more); stars never follow stars. */
  const closeOverStars = () => {
    let carry = 0;
    for (let word = 0; word < words; word += 1) {
      const stars = current[word]! & starMask[word]!;
      current[word]! |= (stars << 1) | carry;
      carry = stars >>> 31;
    }
  };
  return (text) => {
    current.fill(0);
    current[0] = 1;
    closeOverStars();
    for (const char of text) {
      const advance = advanceMask(char);
      let carry = 0;
      let alive = 0;
      for (let word = 0; word < words; word += 1) {
        const state = current[word]!;
        const moved = state & advance[word]!;
        const next = (state & starMask[word]!) | (moved << 1) | carry;
        carry = moved >>> 31;
        current[word] = next;
        alive |= next;
      }
      if (alive === 0) return false;
      closeOverStars();
    }
    return (current[acceptWord]! & acceptBit) !== 0;
  };
}

/** Does `text` match the glob `pattern`? (Compiles the pattern; use compileGlob for many texts.) */
export function globMatch(glob: string, text: string): boolean {
  return compileGlob(glob)(text);
}
