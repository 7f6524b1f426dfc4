// The tree's preview of an entry read from the front of its line, stopping as soon as the preview
// is decided. The first tree of a session needs a preview of every entry; walking every line to
// its end (a message's usage, its tool calls' arguments, a 20 MB tool result's closing quote)
// made the first tree cost more than parsing the file. What the scan already knows (the entry's
// type, a message's role, a custom entry's customType, where in the line it stopped reading) is
// taken from its record; only the texts the preview shows are read, up to where it is full.
//
// What this trusts: a line written by Pi or pith has no duplicate keys, and damage after the part
// that decides the preview is found when the entry is parsed (the context leaves such an entry
// out), not here. Anything else it cannot read for sure gives undefined: the line is then parsed.
import { CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, Cursor, OPEN_BRACE, OPEN_BRACKET, QUOTE, type Span } from "./json-cursor.js";
import type { EntryRecord } from "./load.js";
import { PreviewClip } from "./preview-clip.js";
import { clip } from "./tree.js";

const K_MESSAGE = Buffer.from("message");
const K_CONTENT = Buffer.from("content");
const K_COMMAND = Buffer.from("command");
const K_SUMMARY = Buffer.from("summary");
const K_STOP_REASON = Buffer.from("stopReason");
const T_ABORTED = Buffer.from("aborted");
const T_ERROR = Buffer.from("error");

const CLIP = new PreviewClip();

/**
 * Bytes of a text decoded for its preview when its bytes are not read as they are (UTF-8 that is
 * not well formed, which a decoder replaces): 384 fill the preview for most texts, then longer
 * tries, then the whole text.
 */
const PREFIX_TRIES = [384, 4096, 65536, Infinity];

/**
 * Feeds the JSON string contents `span` to the preview as one piece: from its bytes where it can,
 * else decoding only as much of its start as the preview needs. false when it does not decode
 * (the caller parses the line).
 */
function feedJsonString(c: Cursor, span: Span): boolean {
  CLIP.mark();
  if (CLIP.jsonBytes(c.buf, span.start, span.end)) return true;
  for (const maxBytes of PREFIX_TRIES) {
    CLIP.backToMark();
    const d = c.decode(span, maxBytes);
    if (!d) return false;
    CLIP.text(d.text);
    // what was decoded fills the preview by itself: the rest of the text could not change it
    if (d.whole || CLIP.full) return true;
  }
  return false;
}

/** Moves the cursor to the value of `key` in the object whose "{" is at pos, skipping the values before it; false if the object ends first or is not read. */
function seekKey(c: Cursor, key: Buffer): boolean {
  if (c.buf[c.pos] !== OPEN_BRACE) return false;
  c.pos++;
  return seekFrom(c, key, true);
}

/**
 * seekKey from inside an object: at its first key (`first`) or just after a value; false if the
 * object ends first or is not read.
 */
function seekFrom(c: Cursor, key: Buffer, first: boolean): boolean {
  for (;;) {
    c.skipSpace();
    if (!first && c.buf[c.pos++] !== COMMA) return false;
    first = false;
    c.skipSpace();
    const found = c.keyIs(key);
    if (found < 0) return false;
    c.skipSpace();
    if (c.buf[c.pos++] !== COLON) return false;
    c.skipSpace();
    if (found === 1) return true;
    if (!c.skipValue()) return false;
  }
}

/**
 * To the value of `key` in the entry's object (`inMessage`: in its message object), starting where
 * the scan stopped reading when it read the line in Pi's order (the fields before are not walked
 * again), else from the line's start.
 */
function seekEntryKey(c: Cursor, rec: EntryRecord, key: Buffer, inMessage: boolean): boolean {
  if (rec.bodyAt >= 0) {
    c.pos += rec.bodyAt;
    return seekFrom(c, key, false);
  }
  return inMessage ? seekKey(c, K_MESSAGE) && seekKey(c, key) : seekKey(c, key);
}

/**
 * Feeds the string value at pos to the preview as a piece, from its start: true when the preview
 * is full (the cursor is then anywhere: nothing more is read) or the string was read (the cursor
 * after it); false when it is not a string or does not decode.
 */
function feedString(c: Cursor): boolean {
  if (c.buf[c.pos] !== QUOTE) return false;
  CLIP.mark();
  const stop = CLIP.jsonChars(c.buf, c.pos + 1, c.end);
  if (stop >= 0 && (CLIP.full || c.buf[stop] === QUOTE)) {
    c.pos = stop + 1;
    return true;
  }
  // what the bytes cannot say (or a line cut short): the string decoded, from its span
  CLIP.backToMark();
  const s = c.stringSpan();
  return s !== null && feedJsonString(c, s);
}

/** A content block's type, as far as the preview cares. */
const NO_TYPE = 0;
const TEXT = 1;
const TOOL_CALL = 2;
const OTHER = 3;
const BLOCK_KEYS = [Buffer.from("type"), Buffer.from("text"), Buffer.from("name")];
const BLOCK_TYPES = [Buffer.from("text"), Buffer.from("toolCall")];

/** One content block, read without allocating: its type, its name's bytes, its text (fed as it is read when its type came first). */
const BLOCK = {
  type: NO_TYPE,
  nameStart: -1,
  nameEnd: -1,
  /** its text was a string fed to the preview (a text block's, read after its type) */
  fed: false,
  /** that text was empty */
  empty: false,
  /** a text seen before the type, not yet fed */
  text: null as Span | null,
};

const READ = 1;
/** the preview filled while reading the block: nothing more is needed */
const DECIDED = 2;
const FAILED = 0;

function readBlock(c: Cursor): number {
  const b = BLOCK;
  b.type = NO_TYPE;
  b.nameStart = b.nameEnd = -1;
  b.text = null;
  b.fed = b.empty = false;
  if (c.buf[c.pos] !== OPEN_BRACE) return FAILED;
  c.pos++;
  c.skipSpace();
  if (c.buf[c.pos] === CLOSE_BRACE) {
    c.pos++;
    return READ;
  }
  for (;;) {
    c.skipSpace();
    const key = c.oneOf(BLOCK_KEYS);
    if (key < 0) return FAILED;
    c.skipSpace();
    if (c.buf[c.pos++] !== COLON) return FAILED;
    c.skipSpace();
    // a second type, text or name: JSON.parse would take the last; left to the parser
    if (key === 0) {
      if (b.type !== NO_TYPE) return FAILED;
      const t = c.oneOf(BLOCK_TYPES);
      if (t < 0) return FAILED;
      b.type = t === 0 ? TEXT : t === 1 ? TOOL_CALL : OTHER;
    } else if (key === 1) {
      if (b.fed || b.text) return FAILED;
      if (c.buf[c.pos] !== QUOTE) {
        if (!c.skipValue()) return FAILED;
      } else if (b.type === TEXT) {
        // a text block's text, its type already read: fed as it is read
        b.fed = true;
        b.empty = c.buf[c.pos + 1] === QUOTE;
        if (!feedString(c)) return FAILED;
        if (CLIP.full) return DECIDED;
      } else if (!(b.text = c.stringSpan())) return FAILED;
    } else if (key === 2) {
      if (b.nameStart >= 0) return FAILED;
      b.nameStart = c.pos + 1;
      if (c.oneOf(BLOCK_TYPES) < 0) return FAILED;
      b.nameEnd = c.pos - 1;
    } else if (!c.skipValue()) return FAILED;
    c.skipSpace();
    const d = c.buf[c.pos++];
    if (d === CLOSE_BRACE) return READ;
    if (d !== COMMA) return FAILED;
  }
}

/**
 * The preview of a content value at pos (a string, or an array of blocks) as previewOf gives it
 * for a message of `role`: its texts clipped; with no text, an assistant's tool calls. undefined
 * when it needs more than the content (an assistant's stop reason) or cannot be read here.
 */
function contentPreview(c: Cursor, role: string, asCustomMessage: boolean): string | undefined {
  CLIP.reset();
  const first = c.buf[c.pos];
  if (first === QUOTE) {
    // an empty text is no text; an assistant's string content is left to the parser
    if (c.buf[c.pos + 1] === QUOTE && !asCustomMessage) return role === "assistant" ? undefined : "";
    return feedString(c) ? CLIP.result() : undefined;
  }
  if (first !== OPEN_BRACKET) return asCustomMessage ? undefined : role === "assistant" ? undefined : "";
  c.pos++;
  let texts = 0;
  let firstEmpty = false;
  let tools: string[] | null = null;
  c.skipSpace();
  if (c.buf[c.pos] === CLOSE_BRACKET) c.pos++;
  else {
    for (;;) {
      c.skipSpace();
      const read = readBlock(c);
      if (read === FAILED) return undefined;
      const b = BLOCK;
      if (b.type === TEXT && (b.fed || b.text)) {
        if (texts++ === 0) firstEmpty = b.fed ? b.empty : b.text!.end === b.text!.start;
        // nothing after this can change it
        if (read === DECIDED) return CLIP.result();
        if (!b.fed && !feedJsonString(c, b.text!)) return undefined;
        if (CLIP.full) return CLIP.result();
      } else if (b.type === TOOL_CALL) {
        if (b.nameStart < 0) return undefined;
        (tools ??= []).push(c.buf.toString("utf8", b.nameStart, b.nameEnd));
      }
      c.skipSpace();
      const d = c.buf[c.pos++];
      if (d === CLOSE_BRACKET) break;
      if (d !== COMMA) return undefined;
    }
  }
  if (asCustomMessage || texts > 1 || (texts === 1 && !firstEmpty)) return CLIP.result();
  if (role !== "assistant") return "";
  if (tools) return clip(`[tool calls: ${tools.join(", ")}]`);
  // neither text nor tool calls: what the stop reason says, which Pi writes after the content (an
  // aborted or failed reply shows its error message: left to the parser, as is a stop reason
  // written before the content)
  if (!seekFrom(c, K_STOP_REASON, false)) return undefined;
  const reason = c.plainString();
  if (!reason || c.is(reason, T_ABORTED) || c.is(reason, T_ERROR)) return undefined;
  return "[empty]";
}

/** The tree's preview of the entry of `rec` on this line (its content, without the newline), or undefined. */
export function previewFromPrefix(buf: Buffer, start: number, end: number, rec: EntryRecord): string | undefined {
  const c = new Cursor(buf, start, end);
  switch (rec.type) {
    case "message": {
      const role = rec.role;
      if (role === undefined || role === "compactionSummary" || role === "branchSummary") return undefined;
      if (role === "bashExecution") {
        if (!seekEntryKey(c, rec, K_COMMAND, true)) return undefined;
        CLIP.reset();
        // an empty command is no text: previewOf gives ""
        return feedString(c) ? CLIP.result() : undefined;
      }
      if (!seekEntryKey(c, rec, K_CONTENT, true)) return undefined;
      return contentPreview(c, role, false);
    }
    case "custom_message":
      return seekEntryKey(c, rec, K_CONTENT, false) ? contentPreview(c, "custom", true) : undefined;
    case "compaction":
    case "branch_summary": {
      if (!seekEntryKey(c, rec, K_SUMMARY, false)) return undefined;
      CLIP.reset();
      return feedString(c) ? CLIP.result() : undefined;
    }
    case "custom":
      return rec.customType;
    default:
      return undefined;
  }
}
