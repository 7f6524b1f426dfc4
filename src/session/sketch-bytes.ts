// A tree preview read from an entry's line without parsing it. The first tree of a session needs
// a preview of every entry; parsing every line in full (a 20 MB tool result for 120 characters)
// made the first tree cost more than parsing the file. The common entries (messages, compactions,
// branch summaries, custom entries) are read here: only the start of the texts the preview shows
// is decoded, everything else is skipped. Anything else, or anything unusual, gives undefined and
// the caller parses the line: the result must always be what previewOf gives for the parsed entry.
import { Cursor } from "./json-scan.js";
import { clip, clipInfo, type EntrySketch } from "./tree.js";

/** Bytes of a text decoded for its preview (the preview shows 120 characters). */
const PREFIX_BYTES = 4096;

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

type Text = { text: string; whole: boolean };

/** What the preview of a message needs from it. */
interface MessageParts {
  role?: string;
  /** the content was a string */
  contentText?: Text;
  /** the content was an array: its text blocks' texts, and the names of its tool calls */
  textBlocks?: Text[];
  toolNames?: string[];
  command?: Text;
  stopReason?: string;
}

/** Reads a key's value once; a key seen twice (JSON.parse would take the last) is left to the parser. */
function once(seen: Set<string>, key: string): boolean {
  if (seen.has(key)) return false;
  seen.add(key);
  return true;
}

function readBlock(c: Cursor, parts: MessageParts): boolean {
  let type: string | undefined;
  let text: Text | undefined;
  let name: string | undefined;
  const seen = new Set<string>();
  const ok = c.object((k) => {
    if (c.is(k, KEYS.type)) {
      if (!once(seen, "type")) return false;
      const s = c.stringPrefix(256);
      if (!s || !s.whole) return false;
      type = s.text;
      return true;
    }
    if (c.is(k, KEYS.text)) {
      if (!once(seen, "text")) return false;
      if (c.buf[c.pos] !== 0x22) return c.skipValue();
      const s = c.stringPrefix(PREFIX_BYTES);
      if (!s) return false;
      text = s;
      return true;
    }
    if (c.is(k, KEYS.name)) {
      if (!once(seen, "name")) return false;
      const s = c.stringPrefix(1024);
      if (!s || !s.whole) return false;
      name = s.text;
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
    const s = c.stringPrefix(PREFIX_BYTES);
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
  const seen = new Set<string>();
  const ok = c.object((k) => {
    if (c.is(k, KEYS.role)) {
      if (!once(seen, "role")) return false;
      const s = c.stringPrefix(256);
      if (!s || !s.whole) return false;
      parts.role = s.text;
      return true;
    }
    if (c.is(k, KEYS.content)) return once(seen, "content") && readContent(c, parts);
    if (c.is(k, KEYS.command)) {
      if (!once(seen, "command")) return false;
      const s = c.stringPrefix(PREFIX_BYTES);
      if (!s) return false;
      parts.command = s;
      return true;
    }
    if (c.is(k, KEYS.stopReason)) {
      if (!once(seen, "stopReason")) return false;
      const s = c.stringPrefix(256);
      if (!s || !s.whole) return false;
      parts.stopReason = s.text;
      return true;
    }
    return c.skipValue();
  });
  return ok ? parts : undefined;
}

/** clip over texts that may be prefixes: undefined when a cut text might have changed the preview. */
function clipTexts(texts: Text[]): string | undefined {
  const cut = texts.findIndex((t) => !t.whole);
  if (cut < 0) return clip(...texts.map((t) => t.text));
  // the texts up to the first cut one must fill the preview by themselves: then the rest of it
  // (and whatever follows) could not have changed it
  const info = clipInfo(texts.slice(0, cut + 1).map((t) => t.text));
  return info.full ? info.text : undefined;
}

function messagePreview(m: MessageParts): string | undefined {
  let pieces: Text[];
  if (m.role === "bashExecution") pieces = m.command ? [m.command] : [];
  else if (m.role === "compactionSummary" || m.role === "branchSummary") return undefined;
  else if (m.contentText) pieces = [m.contentText];
  else pieces = m.textBlocks ?? [];
  if (pieces.length > 1 || (pieces[0] && pieces[0].text.length > 0)) return clipTexts(pieces);
  if (m.role === "assistant") {
    if (!m.toolNames) return undefined;
    if (m.toolNames.length > 0) return clip(`[tool calls: ${m.toolNames.join(", ")}]`);
    // an aborted or failed reply shows its error: rare, left to the parser
    if (m.stopReason === "aborted" || m.stopReason === "error") return undefined;
    return "[empty]";
  }
  return "";
}

/** The tree's sketch of the entry on this line, or undefined when the line must be parsed for it. */
export function sketchFromLine(buf: Buffer, start: number, end: number): EntrySketch | undefined {
  const c = new Cursor(buf, start, end);
  c.skipSpace();
  let type: string | undefined;
  let message: MessageParts | undefined;
  let summary: Text | undefined;
  let customType: string | undefined;
  const seen = new Set<string>();
  const ok = c.object((k) => {
    if (c.is(k, KEYS.type)) {
      if (!once(seen, "type")) return false;
      const s = c.stringPrefix(256);
      if (!s || !s.whole) return false;
      type = s.text;
      return true;
    }
    if (c.is(k, KEYS.message)) {
      if (!once(seen, "message") || c.buf[c.pos] !== 0x7b) return false;
      message = readMessage(c);
      return message !== undefined;
    }
    if (c.is(k, KEYS.summary)) {
      if (!once(seen, "summary")) return false;
      const s = c.stringPrefix(PREFIX_BYTES);
      if (!s) return false;
      summary = s;
      return true;
    }
    if (c.is(k, KEYS.customType)) {
      if (!once(seen, "customType")) return false;
      const s = c.stringPrefix(1024);
      if (!s || !s.whole) return false;
      customType = s.text;
      return true;
    }
    return c.skipValue();
  });
  if (!ok) return undefined;
  c.skipSpace();
  if (c.pos !== end) return undefined;
  if (type === "message") {
    if (!message || message.role === undefined) return undefined;
    const preview = messagePreview(message);
    return preview === undefined ? undefined : { preview, role: message.role };
  }
  if (type === "compaction" || type === "branch_summary") {
    if (!summary) return undefined;
    const preview = clipTexts([summary]);
    return preview === undefined ? undefined : { preview };
  }
  if (type === "custom") return customType === undefined ? undefined : { preview: customType };
  return undefined;
}
