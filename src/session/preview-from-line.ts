// A tree preview read from an entry's whole line without parsing it: the second try, for a line
// whose front did not decide its preview (preview-from-front.ts), before JSON.parse. It walks
// every key of the line (so a duplicate key or a line that does not end where its object does is
// caught here and left to the parser); only the start of the texts the preview shows is decoded.
// Anything else, or anything unusual, gives undefined and the caller parses the line: the result
// must always be what previewOf gives for the parsed entry.
import { Cursor, intern, readString, type Span } from "./json-cursor.js";
import { PreviewClip } from "./preview-clip.js";
import { clip } from "./tree.js";

/**
 * Bytes of a text decoded for its preview (the preview shows 120 characters): 384 fill it for
 * most texts, three-byte characters (CJK) included; whitespace runs get longer tries, then the
 * whole text.
 */
const PREFIX_TRIES = [384, 4096, 65536, Infinity];

/**
 * Feeds the JSON string contents `span` to the preview as one piece: from its bytes where they
 * are ASCII with short escapes, else decoding only as much of its start as the preview needs.
 * false when it does not decode (the caller parses the line).
 */
export function feedJsonString(clip: PreviewClip, c: Cursor, span: Span): boolean {
  clip.mark();
  if (clip.jsonBytes(c.buf, span.start, span.end)) return true;
  for (const maxBytes of PREFIX_TRIES) {
    clip.backToMark();
    const d = c.decode(span, maxBytes);
    if (!d) return false;
    clip.text(d.text);
    // what was decoded fills the preview by itself: the rest of the text could not change it
    if (d.whole || clip.full) return true;
  }
  return false;
}

const CLIP = new PreviewClip();

const KEYS = {
  type: Buffer.from("type"),
  message: Buffer.from("message"),
  role: Buffer.from("role"),
  content: Buffer.from("content"),
  text: Buffer.from("text"),
  name: Buffer.from("name"),
  command: Buffer.from("command"),
  stopReason: Buffer.from("stopReason"),
  summary: Buffer.from("summary"),
  customType: Buffer.from("customType"),
};

/** What the preview of a message needs from it. */
interface MessageParts {
  role?: string;
  /** the content was a string */
  contentText?: Span;
  /** the content was an array: its text blocks' texts, and the names of its tool calls */
  textBlocks?: Span[];
  toolNames?: string[];
  command?: Span;
  stopReason?: string;
}

// the words a line repeats (block types, stop reasons) as one string each
for (const w of ["text", "toolCall", "thinking", "image", "stop", "toolUse", "length", "aborted", "error"]) intern(w);

/** A string without escapes (a type, a role, a name), interned where it is a known word; undefined for anything else. */
function word(c: Cursor): string | undefined {
  const s = c.plainString();
  return s ? readString(c.buf, s.start, s.end) : undefined;
}

/** Keys already read in the object being walked, as bits. */
class Seen {
  private bits = 0;
  /** Reads a key's value once; a key seen twice (JSON.parse would take the last) is left to the parser. */
  once(bit: number): boolean {
    if (this.bits & bit) return false;
    this.bits |= bit;
    return true;
  }
}
const B_TYPE = 1;
const B_TEXT = 2;
const B_NAME = 4;
const B_ROLE = 8;
const B_CONTENT = 16;
const B_COMMAND = 32;
const B_STOP = 64;
const B_MESSAGE = 128;
const B_SUMMARY = 256;
const B_CUSTOM = 512;

function readBlock(c: Cursor, parts: MessageParts): boolean {
  let type: string | undefined;
  let text: Span | undefined;
  let name: string | undefined;
  const seen = new Seen();
  const ok = c.object((k) => {
    if (c.is(k, KEYS.type)) {
      if (!seen.once(B_TYPE)) return false;
      const s = word(c);
      if (s === undefined) return false;
      type = s;
      return true;
    }
    if (c.is(k, KEYS.text)) {
      if (!seen.once(B_TEXT)) return false;
      if (c.buf[c.pos] !== 0x22) return c.skipValue();
      const s = c.stringSpan();
      if (!s) return false;
      text = s;
      return true;
    }
    if (c.is(k, KEYS.name)) {
      if (!seen.once(B_NAME)) return false;
      const s = word(c);
      if (s === undefined) return false;
      name = s;
      return true;
    }
    return c.skipValue();
  });
  if (!ok) return false;
  if (type === "text" && text) parts.textBlocks!.push(text);
  if (type === "toolCall") {
    if (name === undefined) return false; // "undefined" in the preview: the parser's business
    parts.toolNames!.push(name);
  }
  return true;
}

function readContent(c: Cursor, parts: MessageParts): boolean {
  const first = c.buf[c.pos];
  if (first === 0x22) {
    const s = c.stringSpan();
    if (!s) return false;
    parts.contentText = s;
    return true;
  }
  if (first !== 0x5b) return false;
  parts.textBlocks = [];
  parts.toolNames = [];
  c.pos++;
  c.skipSpace();
  if (c.buf[c.pos] === 0x5d) {
    c.pos++;
    return true;
  }
  for (;;) {
    c.skipSpace();
    if (c.buf[c.pos] === 0x7b) {
      if (!readBlock(c, parts)) return false;
    } else if (!c.skipValue()) return false;
    c.skipSpace();
    const d = c.buf[c.pos++];
    if (d === 0x5d) return true;
    if (d !== 0x2c) return false;
  }
}

function readMessage(c: Cursor): MessageParts | undefined {
  const parts: MessageParts = {};
  const seen = new Seen();
  const ok = c.object((k) => {
    if (c.is(k, KEYS.role)) {
      if (!seen.once(B_ROLE)) return false;
      const s = word(c);
      if (s === undefined) return false;
      parts.role = s;
      return true;
    }
    if (c.is(k, KEYS.content)) return seen.once(B_CONTENT) && readContent(c, parts);
    if (c.is(k, KEYS.command)) {
      if (!seen.once(B_COMMAND)) return false;
      const s = c.stringSpan();
      if (!s) return false;
      parts.command = s;
      return true;
    }
    if (c.is(k, KEYS.stopReason)) {
      if (!seen.once(B_STOP)) return false;
      const s = word(c);
      if (s === undefined) return false;
      parts.stopReason = s;
      return true;
    }
    return c.skipValue();
  });
  return ok ? parts : undefined;
}

/** clip over the texts, decoding only as much of them as the preview needs; undefined when one does not decode. */
function clipTexts(c: Cursor, spans: readonly Span[]): string | undefined {
  CLIP.reset();
  for (const span of spans) {
    if (!feedJsonString(CLIP, c, span)) return undefined;
    if (CLIP.full) break;
  }
  return CLIP.result();
}

function messagePreview(c: Cursor, m: MessageParts): string | undefined {
  let pieces: Span[];
  if (m.role === "bashExecution") pieces = m.command ? [m.command] : [];
  else if (m.role === "compactionSummary" || m.role === "branchSummary") return undefined;
  else if (m.contentText) pieces = [m.contentText];
  else pieces = m.textBlocks ?? [];
  // an empty first text (two quotes) counts as no text, as in previewOf
  if (pieces.length > 1 || (pieces[0] && pieces[0].end > pieces[0].start)) return clipTexts(c, pieces);
  if (m.role === "assistant") {
    if (!m.toolNames) return undefined;
    if (m.toolNames.length > 0) return clip(`[tool calls: ${m.toolNames.join(", ")}]`);
    // an aborted or failed reply shows its error: rare, left to the parser
    if (m.stopReason === "aborted" || m.stopReason === "error") return undefined;
    return "[empty]";
  }
  return "";
}

/** The tree's preview of the entry on this line, or undefined when the line must be parsed for it. */
export function previewFromLine(buf: Buffer, start: number, end: number): string | undefined {
  const c = new Cursor(buf, start, end);
  c.skipSpace();
  let type: string | undefined;
  let message: MessageParts | undefined;
  let summary: Span | undefined;
  let customType: string | undefined;
  const seen = new Seen();
  const ok = c.object((k) => {
    if (c.is(k, KEYS.type)) {
      if (!seen.once(B_TYPE)) return false;
      const s = word(c);
      if (s === undefined) return false;
      type = s;
      return true;
    }
    if (c.is(k, KEYS.message)) {
      if (!seen.once(B_MESSAGE) || c.buf[c.pos] !== 0x7b) return false;
      message = readMessage(c);
      return message !== undefined;
    }
    if (c.is(k, KEYS.summary)) {
      if (!seen.once(B_SUMMARY)) return false;
      const s = c.stringSpan();
      if (!s) return false;
      summary = s;
      return true;
    }
    if (c.is(k, KEYS.customType)) {
      if (!seen.once(B_CUSTOM)) return false;
      const s = word(c);
      if (s === undefined) return false;
      customType = s;
      return true;
    }
    return c.skipValue();
  });
  if (!ok) return undefined;
  c.skipSpace();
  if (c.pos !== end) return undefined;
  if (type === "message") return message && message.role !== undefined ? messagePreview(c, message) : undefined;
  if (type === "compaction" || type === "branch_summary") return summary ? clipTexts(c, [summary]) : undefined;
  if (type === "custom") return customType;
  return undefined;
}
