// Reading an entry's light fields from a line whose keys are in any order (another writer's, or
// Pi's own custom entries, which put customType before id), without parsing it: the top-level
// keys are walked and every other value skipped, strings with a native search for the next quote.
// Like JSON.parse, the last of duplicate keys wins. Anything it cannot read for sure (an escape
// in a key or a wanted value, a structure it does not expect) gives null: the caller parses the
// line in full.
import type { LightFields } from "./light-fields.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const K_TYPE = Buffer.from("type");
const K_ID = Buffer.from("id");
const K_PARENT = Buffer.from("parentId");
const K_TIMESTAMP = Buffer.from("timestamp");
const K_MESSAGE = Buffer.from("message");
const K_ROLE = Buffer.from("role");
const K_CUSTOM_TYPE = Buffer.from("customType");
const NULL = Buffer.from("null");

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
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
  plainString(): { start: number; end: number } | null {
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

  /** The string value at pos (an opening quote): the span of its contents, escapes undecoded; null if it is not a string. */
  stringSpan(): { start: number; end: number } | null {
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
  decode(span: { start: number; end: number }, maxBytes: number): { text: string; whole: boolean } | null {
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

  /** stringSpan, decoded (see decode). */
  stringPrefix(maxBytes: number): { text: string; whole: boolean } | null {
    const span = this.stringSpan();
    return span && this.decode(span, maxBytes);
  }

  is(span: { start: number; end: number }, key: Buffer): boolean {
    if (span.end - span.start !== key.length) return false;
    // keys are short: compared by hand (Buffer.compare's call was a tenth of a tiny entry's sketch)
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
  object(onKey: (key: { start: number; end: number }) => boolean): boolean {
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

/** The light fields of a JSON object line whose keys come in any order, or null. */
export function readFieldsAnyOrder(buf: Buffer, start: number, end: number, read: (buf: Buffer, start: number, end: number) => string): LightFields | null {
  const c = new Cursor(buf, start, end);
  c.skipSpace();
  let type: string | undefined;
  let id: string | undefined;
  let parentId: string | null | undefined;
  let timestamp: string | undefined;
  let role: string | undefined;
  let customType: string | undefined;
  const str = () => {
    const s = c.plainString();
    return s ? read(buf, s.start, s.end) : undefined;
  };
  const ok = c.object((key) => {
    if (c.is(key, K_TYPE)) return (type = str()) !== undefined;
    if (c.is(key, K_ID)) return (id = str()) !== undefined;
    if (c.is(key, K_TIMESTAMP)) return (timestamp = str()) !== undefined;
    if (c.is(key, K_CUSTOM_TYPE)) {
      // a customType that is not a plain string is left to the full parse
      if (buf[c.pos] !== QUOTE) return false;
      return (customType = str()) !== undefined;
    }
    if (c.is(key, K_PARENT)) {
      if (c.pos + 4 <= end && buf.compare(NULL, 0, 4, c.pos, c.pos + 4) === 0) {
        parentId = null;
        c.pos += 4;
        return true;
      }
      return (parentId = str()) !== undefined;
    }
    if (c.is(key, K_MESSAGE)) {
      if (buf[c.pos] !== OPEN_BRACE) return c.skipValue();
      role = undefined;
      return c.object((k) => (c.is(k, K_ROLE) && buf[c.pos] === QUOTE ? (role = str()) !== undefined : c.skipValue()));
    }
    return c.skipValue();
  });
  if (!ok) return null;
  c.skipSpace();
  // the object is the whole line
  if (c.pos !== end) return null;
  if (type === undefined || id === undefined || id.length === 0 || timestamp === undefined || parentId === undefined) return null;
  if (type === "message" && role === undefined) return null;
  return { type, id, parentId, timestamp, role: type === "message" ? role : undefined, customType: type === "custom" ? customType : undefined };
}
