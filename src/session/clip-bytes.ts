// The tree's preview (clip in tree.ts) made straight from the bytes of JSON string contents, for
// the common texts: ASCII with at most the short escapes. No string is decoded for it, only the
// preview's own is built: decoding a text's start to clip it was most of a first tree's garbage.
// Anything else (a \u escape, a byte outside ASCII, a control character) gives undefined and
// the caller decodes the texts (sketch-bytes.ts): the result must always be clip's.
import type { Span } from "./json-cursor.js";
import { PREVIEW_CHARS } from "./tree.js";

const OUT = Buffer.alloc(PREVIEW_CHARS + 2);
const SPACE = 0x20;

/** What a short escape's letter decodes to as far as the preview goes (whitespace as a space), or -1. */
function unescaped(letter: number): number {
  switch (letter) {
    case 0x6e: // \n
    case 0x74: // \t
    case 0x72: // \r
    case 0x66: // \f
      return SPACE;
    case 0x62: // \b
      return 0x08;
    case 0x22: // \"
    case 0x5c: // \\
    case 0x2f: // \/
      return letter;
    default:
      return -1;
  }
}

/** clip over the texts of `spans` (joined with spaces), or undefined when a text holds what is not read here. */
export function clipBytes(buf: Buffer, spans: readonly Span[]): string | undefined {
  let n = 0;
  let space = false;
  for (let p = 0; p < spans.length && n <= PREVIEW_CHARS; p++) {
    if (p > 0) space = n > 0;
    const end = spans[p].end;
    for (let i = spans[p].start; i < end && n <= PREVIEW_CHARS; i++) {
      let c = buf[i];
      if (c >= 0x80 || c < 0x20) return undefined;
      if (c === 0x5c) {
        if (++i >= end) return undefined;
        c = unescaped(buf[i]);
        if (c < 0) return undefined;
      }
      // the only whitespace left in ASCII without control characters
      if (c === SPACE) {
        space = n > 0;
        continue;
      }
      if (space) OUT[n++] = SPACE;
      space = false;
      OUT[n++] = c;
    }
  }
  const full = n > PREVIEW_CHARS;
  const text = OUT.toString("latin1", 0, full ? PREVIEW_CHARS - 1 : n);
  return full ? `${text}…` : text;
}
