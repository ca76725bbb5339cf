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

/** Distinct non-ASCII characters whose advance masks are kept; more are recomputed. */
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
  /** Bit j set: token j is not a star and consumes `char` (state j -> j + 1). */
  const fillAdvanceMask = (char: string, into: Uint32Array, offset: number) => {
    tokens.forEach((token, index) => {
      if (!token.star && token.test(char)) into[offset + (index >>> 5)]! |= 1 << (index & 31);
    });
  };
  // ASCII (nearly every key) from one flat table; other characters from a bounded cache.
  const asciiMasks = new Uint32Array(128 * words);
  for (let code = 0; code < 128; code += 1)
    fillAdvanceMask(String.fromCharCode(code), asciiMasks, code * words);
  const otherMasks = new Map<number, Uint32Array>();
  const otherMask = (codePoint: number) => {
    let mask = otherMasks.get(codePoint);
    if (mask) return mask;
    mask = new Uint32Array(words);
    fillAdvanceMask(String.fromCodePoint(codePoint), mask, 0);
    if (otherMasks.size >= MASK_CACHE_LIMIT) otherMasks.clear();
    otherMasks.set(codePoint, mask);
    return mask;
  };
  const acceptWord = tokens.length >>> 5;
  const acceptBit = 1 << (tokens.length & 31);
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
    for (let index = 0; index < text.length; index += 1) {
      let code = text.charCodeAt(index);
      let masks: Uint32Array = asciiMasks;
      let offset = code * words;
      if (code >= 128) {
        code = text.codePointAt(index)!;
        if (code > 0xffff) index += 1;
        masks = otherMask(code);
        offset = 0;
      }
      let carry = 0;
      let alive = 0;
      for (let word = 0; word < words; word += 1) {
        const state = current[word]!;
        const moved = state & masks[offset + word]!;
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
