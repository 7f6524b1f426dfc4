// The one byte-level JSON reader of the light open path: a cursor over a line's bytes with the
// moves a reader that does not build values needs (walk an object's keys, skip a value, find a
// string's end, match a literal, decode the start of a string). The entry's light fields
// (light-fields.ts) and the tree's previews (preview-from-front.ts) are read with it. Whatever
// it cannot read for sure gives null / false and the caller parses the line with JSON.parse.

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

/** A string's contents in the line (escapes undecoded). */
export type Span = { start: number; end: number };

/**
 * The strings a session repeats on every line (entry types, roles, custom types), interned: one
 * string per value rather than one per line (600,000 copies of "message" in a session of tiny
 * entries), and found from the bytes without decoding them first.
 */
const INTERNED_BY_LENGTH: { bytes: Buffer; text: string }[][] = [];

export function intern(text: string): void {
  const bytes = Buffer.from(text);
  (INTERNED_BY_LENGTH[bytes.length] ??= []).push({ bytes, text });
}

/** The bytes as a string (UTF-8), the interned copy when there is one. */
export function readString(buf: Buffer, start: number, end: number): string {
  const candidates = INTERNED_BY_LENGTH[end - start];
  if (candidates !== undefined) {
    for (const c of candidates) if (bytesEqual(buf, start, end, c.bytes)) return c.text;
  }
  return buf.toString("utf8", start, end);
}

/** Whether `lit` sits at `pos` (compared by hand: a native compare costs more to call than to run on a few bytes). */
function bytesEqual(buf: Buffer, pos: number, end: number, lit: Buffer): boolean {
  if (pos + lit.length > end) return false;
  for (let i = 0; i < lit.length; i++) if (buf[pos + i] !== lit[i]) return false;
  return true;
}

/** A position in a JSON line, with the moves a reader that does not build values needs. */
export class Cursor {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  /** Steps over `lit` if it is what comes next. */
  literal(lit: Buffer): boolean {
    if (!bytesEqual(this.buf, this.pos, this.end, lit)) return false;
    this.pos += lit.length;
    return true;
  }

  /**
   * The end of a short string without escapes whose contents start at pos (a field: an id, a
   * type, a timestamp), or -1 if it has an escape or runs past `end` or `max` bytes. Bounded by
   * the field, never by the buffer: a search to the end of a 4 MiB chunk per field, five fields a
   * line, cost 50x a plain parse on escape-free text.
   */
  fieldEnd(max: number): number {
    const limit = Math.min(this.end, this.pos + max);
    for (let i = this.pos; i < limit; i++) {
      const c = this.buf[i];
      if (c === QUOTE) return i;
      if (c === BACKSLASH) return -1;
    }
    return -1;
  }

  skipSpace(): void {
    while (this.pos < this.end && isSpace(this.buf[this.pos])) this.pos++;
  }

  /** After an opening quote at pos: the index of the closing one (escapes allowed), or -1. */
  stringEnd(): number {
    // short strings (keys, types, roles) by hand: a native search costs more to call than to run
    const near = Math.min(this.end, this.pos + 33);
    for (let i = this.pos + 1; i < near; i++) {
      const c = this.buf[i];
      if (c === QUOTE) return i; // no backslash before it: not escaped
      if (c === BACKSLASH) return this.closingQuoteFrom(i);
    }
    return this.closingQuoteFrom(near);
  }

  /** The first quote at or after `from` that no backslash escapes, or -1 (the search stops at the next quote past end). */
  private closingQuoteFrom(from: number): number {
    for (;;) {
      const q = this.buf.indexOf(QUOTE, from);
      if (q === -1 || q >= this.end) return -1;
      // escaped when an odd number of backslashes precedes it
      let n = 0;
      for (let i = q - 1; i > this.pos && this.buf[i] === BACKSLASH; i--) n++;
      if (n % 2 === 0) return q;
      from = q + 1;
    }
  }

  /** A string without escapes (keys, ids, types): its span; null if it has one or is not a string. */
  plainString(): Span | null {
    if (this.buf[this.pos] !== QUOTE) return null;
    // scanned byte by byte: bounded by the string itself, never by the buffer
    for (let i = this.pos + 1; i < this.end; i++) {
      const c = this.buf[i];
      if (c === BACKSLASH) return null;
      if (c === QUOTE) {
        const s = { start: this.pos + 1, end: i };
        this.pos = i + 1;
        return s;
      }
    }
    return null;
  }

  /**
   * Reads the string without escapes at pos (a key, or a value such as a type) and steps past it:
   * 1 when it is `lit`, 0 when another string, -1 when not a plain string. Nothing is allocated:
   * a key walk reads many keys.
   */
  keyIs(lit: Buffer): number {
    const end = this.plainEnd();
    if (end < 0) return -1;
    return this.bytesAre(end, lit) ? 1 : 0;
  }

  /** keyIs over several: the index of the one of `lits` the plain string at pos is, `lits.length` for another, -1 when not a plain string. */
  oneOf(lits: readonly Buffer[]): number {
    const end = this.plainEnd();
    if (end < 0) return -1;
    for (let k = 0; k < lits.length; k++) if (this.bytesAre(end, lits[k])) return k;
    return lits.length;
  }

  /** After a plain string at pos (no escapes): steps past it and gives its closing quote's index, else -1 (pos unmoved). */
  private plainEnd(): number {
    if (this.buf[this.pos] !== QUOTE) return -1;
    for (let i = this.pos + 1; i < this.end; i++) {
      const c = this.buf[i];
      if (c === BACKSLASH) return -1;
      if (c === QUOTE) {
        this.pos = i + 1;
        return i;
      }
    }
    return -1;
  }

  /** Whether the string just stepped over (its closing quote at `end`) is `lit`. */
  private bytesAre(end: number, lit: Buffer): boolean {
    const start = end - lit.length;
    if (this.buf[start - 1] !== QUOTE || start <= 0) return false;
    for (let k = 0; k < lit.length; k++) if (this.buf[start + k] !== lit[k]) return false;
    return true;
  }

  /** The string value at pos (an opening quote): the span of its contents, escapes undecoded; null if it is not a string. */
  stringSpan(): Span | null {
    if (this.buf[this.pos] !== QUOTE) return null;
    const q = this.stringEnd();
    if (q < 0) return null;
    const span = { start: this.pos + 1, end: q };
    this.pos = q + 1;
    return span;
  }

  /**
   * The contents of a string span decoded as JSON.parse would, but only its first `maxBytes`
   * bytes or so: `whole` says whether that is all of it. null if the escapes do not parse.
   */
  decode(span: Span, maxBytes: number): { text: string; whole: boolean } | null {
    const { start, end } = span;
    let cut = end;
    if (end - start > maxBytes) {
      cut = start + maxBytes;
      // not inside a UTF-8 character
      while (cut > start && (this.buf[cut] & 0xc0) === 0x80) cut--;
    }
    // one pass over what is decoded: escapes (not cut inside one) and control characters (which
    // JSON.parse refuses)
    let escapes = false;
    for (let i = start; i < cut; i++) {
      const b = this.buf[i];
      if (b < 0x20) return null;
      if (b !== BACKSLASH) continue;
      escapes = true;
      const len = this.buf[i + 1] === 0x75 ? 6 : 2;
      if (i + len > cut) {
        cut = i;
        break;
      }
      i += len - 1;
    }
    const raw = this.buf.toString("utf8", start, cut);
    if (!escapes) return { text: raw, whole: cut === end };
    // escapes: decoded by JSON.parse itself, so they mean exactly what they mean there
    try {
      return { text: JSON.parse(`"${raw}"`) as string, whole: cut === end };
    } catch {
      return null;
    }
  }

  is(span: Span, key: Buffer): boolean {
    if (span.end - span.start !== key.length) return false;
    // keys are short: compared by hand (Buffer.compare's call was a tenth of a tiny entry's preview)
    for (let i = 0; i < key.length; i++) if (this.buf[span.start + i] !== key[i]) return false;
    return true;
  }

  /** Skips any value; false when it is not well formed as far as can be told. */
  skipValue(): boolean {
    const c = this.buf[this.pos];
    if (c === QUOTE) {
      const q = this.stringEnd();
      if (q < 0) return false;
      this.pos = q + 1;
      return true;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      // nested structure: only brackets and strings matter (strings may hold brackets)
      let depth = 0;
      while (this.pos < this.end) {
        const d = this.buf[this.pos];
        if (d === QUOTE) {
          const q = this.stringEnd();
          if (q < 0) return false;
          this.pos = q + 1;
          continue;
        }
        if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
        else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
          depth--;
          if (depth === 0) {
            this.pos++;
            return true;
          }
        }
        this.pos++;
      }
      return false;
    }
    // a number, true, false or null: up to the next delimiter
    const from = this.pos;
    while (this.pos < this.end) {
      const d = this.buf[this.pos];
      if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) break;
      this.pos++;
    }
    return this.pos > from;
  }

  /**
   * Walks an object's keys at pos ("{"), calling `onKey` with the cursor at each value; onKey
   * reads or skips the value and returns false to give up. Returns false when it gave up.
   */
  object(onKey: (key: Span) => boolean): boolean {
    if (this.buf[this.pos] !== OPEN_BRACE) return false;
    this.pos++;
    this.skipSpace();
    if (this.buf[this.pos] === CLOSE_BRACE) {
      this.pos++;
      return true;
    }
    for (;;) {
      this.skipSpace();
      const key = this.plainString();
      if (!key) return false;
      this.skipSpace();
      if (this.buf[this.pos] !== COLON) return false;
      this.pos++;
      this.skipSpace();
      if (!onKey(key)) return false;
      this.skipSpace();
      const c = this.buf[this.pos];
      this.pos++;
      if (c === CLOSE_BRACE) return true;
      if (c !== COMMA) return false;
    }
  }
}
