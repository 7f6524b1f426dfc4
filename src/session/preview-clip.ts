// The tree's preview rule, fed one piece at a time: pieces joined with spaces, whitespace runs
// collapsed to one space, trimmed, cut at PREVIEW_CHARS with "…". Fed pieces either as strings
// (a parsed entry) or as the bytes of JSON string contents (a line not parsed: see
// preview-from-front.ts), so one rule serves both and a reader can stop as soon as the preview is
// full: nothing after that could change it. The preview is built from char codes into a fresh
// string: a slice would keep a 20 MB text alive in the per-entry cache.

const PREVIEW_CHARS = 120;
const SPACE = 0x20;
const BACKSLASH = 0x5c;
const QUOTE = 0x22;

/** JavaScript's \s, by char code (a regular expression per character cost as much as the parse). */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** What a short escape's letter decodes to (whitespace as a space), or -1. */
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

/** One preview being built. Reused (reset) rather than allocated per entry. */
export class PreviewClip {
  private n = 0;
  private space = false;
  private wide = false;
  private pieces = 0;
  private readonly codes = new Uint16Array(PREVIEW_CHARS + 2);
  private readonly latin1 = Buffer.alloc(PREVIEW_CHARS + 2);
  private readonly marked = new Int32Array(3);

  reset(): this {
    this.n = 0;
    this.space = false;
    this.wide = false;
    this.pieces = 0;
    return this;
  }

  /** The preview is decided: more text could not change it. */
  get full(): boolean {
    return this.n > PREVIEW_CHARS;
  }

  /** Remembers where the preview is (one mark, no allocation): a reader goes back to it to feed a piece another way. */
  mark(): void {
    this.marked[0] = this.n;
    this.marked[1] = this.pieces;
    this.marked[2] = (this.space ? 1 : 0) | (this.wide ? 2 : 0);
  }

  backToMark(): void {
    this.n = this.marked[0];
    this.pieces = this.marked[1];
    this.space = (this.marked[2] & 1) !== 0;
    this.wide = (this.marked[2] & 2) !== 0;
  }

  /** Starts a piece: pieces are joined by a space. */
  private begin(): void {
    if (this.pieces++ > 0) this.space = this.n > 0;
  }

  private push(c: number): void {
    if (this.space) {
      this.codes[this.n] = SPACE;
      this.latin1[this.n++] = SPACE;
    }
    this.space = false;
    if (c > 0xff) this.wide = true;
    this.codes[this.n] = c;
    this.latin1[this.n++] = c;
  }

  /** Feeds a piece given as a string. */
  text(s: string): void {
    this.begin();
    for (let i = 0; i < s.length && this.n <= PREVIEW_CHARS; i++) {
      const c = s.charCodeAt(i);
      if (isSpace(c)) this.space = this.n > 0;
      else this.push(c);
    }
  }

  /**
   * Feeds a piece given as the bytes of a JSON string's contents (UTF-8, escapes undecoded),
   * decoding only the characters the preview takes: a native decode of even a few hundred bytes
   * of CJK cost ten times this. At what JSON.parse would not read the same way (UTF-8 that is not
   * well formed, a raw control character, a broken escape) it returns false, leaving what it fed:
   * go back to the mark and feed the piece decoded instead.
   */
  jsonBytes(buf: Buffer, start: number, end: number): boolean {
    return this.jsonChars(buf, start, end) >= 0;
  }

  /**
   * jsonBytes that also stops at a raw quote (in JSON, only a string's closing one) and where the
   * preview fills: a string can be fed from its start without finding its end first (the end of a
   * 20 MB text full of escaped quotes is a long way off). Returns where it stopped (the quote's
   * index, `end`, or where the preview was full), or -1 where jsonBytes gives false.
   */
  jsonChars(buf: Buffer, start: number, end: number): number {
    this.begin();
    const codes = this.codes;
    const latin1 = this.latin1;
    let i = start;
    for (; i < end && this.n <= PREVIEW_CHARS; i++) {
      let c = buf[i];
      // printable ASCII, most of every text: written here, without a call (the first tree runs
      // this before the engine has optimized anything)
      if (c > SPACE && c < 0x7f && c !== QUOTE && c !== BACKSLASH) {
        let n = this.n;
        if (this.space) {
          codes[n] = SPACE;
          latin1[n++] = SPACE;
          this.space = false;
        }
        codes[n] = c;
        latin1[n++] = c;
        this.n = n;
        continue;
      }
      if (c === SPACE) {
        this.space = this.n > 0;
        continue;
      }
      if (c >= 0x80) {
        const cp = utf8At(buf, i, end);
        if (cp < 0) return -1;
        i += cp >= 0x10000 ? 3 : cp >= 0x800 ? 2 : 1;
        if (cp >= 0x10000) {
          // two UTF-16 code units, as in the decoded string; neither is whitespace
          this.push(0xd800 + ((cp - 0x10000) >> 10));
          if (this.n <= PREVIEW_CHARS) this.push(0xdc00 + ((cp - 0x10000) & 0x3ff));
          continue;
        }
        c = cp;
      } else if (c === BACKSLASH) {
        if (++i >= end) return -1;
        if (buf[i] === 0x75 /* u */) {
          c = hex4(buf, i + 1, end);
          if (c < 0) return -1;
          i += 4;
        } else {
          c = unescaped(buf[i]);
          if (c < 0) return -1;
        }
      } else if (c === QUOTE) return i;
      else if (c < 0x20) return -1;
      if (isSpace(c)) this.space = this.n > 0;
      else this.push(c);
    }
    return i;
  }

  /** The preview fed so far. */
  result(): string {
    const full = this.full;
    const len = full ? PREVIEW_CHARS - 1 : this.n;
    // fresh strings, never slices of the texts
    const text = this.wide ? String.fromCharCode.apply(null, this.codes.subarray(0, len) as unknown as number[]) : this.latin1.toString("latin1", 0, len);
    return full ? `${text}…` : text;
  }
}

/** The four hex digits at `at` as a code unit, or -1. */
function hex4(buf: Buffer, at: number, end: number): number {
  if (at + 4 > end) return -1;
  let v = 0;
  for (let k = at; k < at + 4; k++) {
    const d = buf[k];
    const h = d >= 0x30 && d <= 0x39 ? d - 0x30 : d >= 0x61 && d <= 0x66 ? d - 0x57 : d >= 0x41 && d <= 0x46 ? d - 0x37 : -1;
    if (h < 0) return -1;
    v = (v << 4) | h;
  }
  return v;
}

function cont(b: number): boolean {
  return (b & 0xc0) === 0x80;
}

/**
 * The code point of the well-formed UTF-8 sequence at `i` (its lead byte >= 0x80), or -1 for
 * anything a decoder would replace (Unicode's table of well-formed sequences: no overlongs, no
 * surrogates, nothing past U+10FFFF, nothing cut at `end`).
 */
function utf8At(buf: Buffer, i: number, end: number): number {
  const b0 = buf[i];
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    if (i + 1 >= end || !cont(buf[i + 1])) return -1;
    return ((b0 & 0x1f) << 6) | (buf[i + 1] & 0x3f);
  }
  if (b0 >= 0xe0 && b0 <= 0xef) {
    if (i + 2 >= end) return -1;
    const b1 = buf[i + 1];
    const lo = b0 === 0xe0 ? 0xa0 : 0x80;
    const hi = b0 === 0xed ? 0x9f : 0xbf;
    if (b1 < lo || b1 > hi || !cont(buf[i + 2])) return -1;
    return ((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (buf[i + 2] & 0x3f);
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    if (i + 3 >= end) return -1;
    const b1 = buf[i + 1];
    const lo = b0 === 0xf0 ? 0x90 : 0x80;
    const hi = b0 === 0xf4 ? 0x8f : 0xbf;
    if (b1 < lo || b1 > hi || !cont(buf[i + 2]) || !cont(buf[i + 3])) return -1;
    return ((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((buf[i + 2] & 0x3f) << 6) | (buf[i + 3] & 0x3f);
  }
  return -1;
}
