/**
 * Text from the masters (owner labels) shown as what it is: bidirectional controls (U+202E "RLO"
 * turns `evil\u202Egnp.exe` into "evilexe.png"), zero-width and other invisible characters, and
 * control characters are written out as `\u202E` escapes, so two labels that look alike on screen
 * are told apart and none reorders the text around it.
 */

/**
 * Bidi controls (ALM, LRM/RLM, LRE…RLO, LRI…PDI), invisible formatting (soft hyphen, CGJ, Mongolian
 * vowel separator, zero-width space/joiners, word joiner, invisible operators, BOM, interlinear
 * annotation, tags, variation selectors, Hangul fillers), C0/C1 controls and the line/paragraph
 * separators: [first, last] code point ranges.
 */
const INVISIBLE: ReadonlyArray<readonly [number, number]> = [
  [0x0000, 0x001f],
  [0x007f, 0x009f],
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xfff9, 0xfffb],
  [0xe0000, 0xe0fff],
];

const isInvisible = (code: number): boolean =>
  INVISIBLE.some(([first, last]) => code >= first && code <= last);

const escape = (code: number): string =>
  code > 0xffff
    ? `\\u{${code.toString(16).toUpperCase()}}`
    : `\\u${code.toString(16).toUpperCase().padStart(4, "0")}`;

/** `text` with every invisible or reordering character written as a visible `\\uXXXX` escape. */
export function visibleText(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0)!;
    out += isInvisible(code) ? escape(code) : char;
  }
  return out;
}
