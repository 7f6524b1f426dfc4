// Reads the few fields the tree needs (type, id, parentId, timestamp, and what the entry type
// adds: a message's role, a custom entry's customType) from an entry line without parsing the
// rest of it, with the one byte-level reader (json-cursor.ts). Pi and pith write these keys first
// and in this order: that is read from the line's start, and the message body is never looked
// at. Any other order is read by walking the top-level keys (values skipped); like JSON.parse,
// the last of duplicate keys wins there. Anything it cannot read for sure gives null: the caller
// parses the line in full.
import { Cursor, CLOSE_BRACE, OPEN_BRACE, QUOTE, intern, readString } from "./json-cursor.js";

export interface LightFields {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
  /** message role, for `message` entries */
  role?: string;
  /** for `custom` entries (pith writes it right after the timestamp) */
  customType?: string;
  /**
   * Read in Pi's order: where in the line (from its start) the fields read end — after a message's
   * role (inside the message object) or after the timestamp — so that a reader of the rest
   * (the tree's preview) starts there; -1 when read in another order.
   */
  bodyAt: number;
}

/** The field an entry type adds to the light ones: a message's role, or a top-level string key. */
type Extra = "role" | "customType";

/**
 * Every entry type the light path knows, with the field it reads beside the common ones (null:
 * none). A type named here is interned (one string for all its lines); adding an entry type is
 * one line. A type not named here is still read, as its own string, without an extra field.
 */
const ENTRY_TYPES = new Map<string, Extra | null>([
  ["message", "role"],
  ["custom", "customType"],
  ["compaction", null],
  ["branch_summary", null],
  ["model_change", null],
  ["thinking_level_change", null],
  ["custom_message", null],
  ["label", null],
  ["session_info", null],
]);
for (const type of ENTRY_TYPES.keys()) intern(type);
for (const role of ["user", "assistant", "toolResult", "bashExecution", "branchSummary", "compactionSummary", "custom"]) intern(role);

/** Longest field the light path reads (type, id, parentId, timestamp, role, customType): more is not light. */
const MAX_FIELD = 256;

const P_TYPE = Buffer.from('{"type":"');
const P_ID = Buffer.from('","id":"');
const P_PARENT = Buffer.from('","parentId":');
const P_NULL = Buffer.from("null");
const P_TIMESTAMP = Buffer.from(',"timestamp":"');
/** What comes between the timestamp's closing quote and the extra field's value, in Pi's order. */
const P_EXTRA: Record<Extra, Buffer> = { role: Buffer.from('","message":{"role":"'), customType: Buffer.from('","customType":"') };

const K_TYPE = Buffer.from("type");
const K_ID = Buffer.from("id");
const K_PARENT = Buffer.from("parentId");
const K_TIMESTAMP = Buffer.from("timestamp");
const K_MESSAGE = Buffer.from("message");
const K_ROLE = Buffer.from("role");
const K_CUSTOM_TYPE = Buffer.from("customType");

/** The light fields of an entry line in any key order, or null (see the top of this file). */
export function readEntryFields(buf: Buffer, start: number, end: number): LightFields | null {
  return readLightFields(buf, start, end) ?? readFieldsAnyOrder(buf, start, end);
}

/** The light fields of a line in Pi's key order, read from its start; null for anything else. */
export function readLightFields(buf: Buffer, start: number, end: number): LightFields | null {
  // A line cut short by a crash almost never ends in "}": send those to the full parser.
  if (end <= start || buf[end - 1] !== CLOSE_BRACE) return null;
  const c = new Cursor(buf, start, end);
  if (!c.literal(P_TYPE)) return null;
  let q = c.fieldEnd(MAX_FIELD);
  if (q < 0) return null;
  const type = readString(buf, c.pos, q);
  c.pos = q;
  if (!c.literal(P_ID)) return null;
  q = c.fieldEnd(MAX_FIELD);
  if (q <= c.pos) return null; // ids are non-empty
  const id = buf.toString("utf8", c.pos, q);
  c.pos = q;
  if (!c.literal(P_PARENT)) return null;
  let parentId: string | null;
  if (c.literal(P_NULL)) parentId = null;
  else {
    if (buf[c.pos] !== QUOTE) return null;
    c.pos++;
    q = c.fieldEnd(MAX_FIELD);
    if (q < 0) return null;
    parentId = buf.toString("utf8", c.pos, q);
    c.pos = q + 1;
  }
  if (!c.literal(P_TIMESTAMP)) return null;
  q = c.fieldEnd(MAX_FIELD);
  if (q < 0) return null;
  const timestamp = buf.toString("utf8", c.pos, q);
  c.pos = q;
  let role: string | undefined;
  let customType: string | undefined;
  const extra = ENTRY_TYPES.get(type);
  if (extra) {
    // what a message is, or what a custom entry is (pith's bookkeeping, an extension's state), must be known without a parse
    if (!c.literal(P_EXTRA[extra])) return null;
    q = c.fieldEnd(MAX_FIELD);
    if (q < 0) return null;
    if (extra === "role") role = readString(buf, c.pos, q);
    else customType = readString(buf, c.pos, q);
  }
  // one object shape for every record (callers add their own fields to it)
  return { type, id, parentId, timestamp, role, customType, bodyAt: q + 1 - start };
}

/** The light fields of a JSON object line whose keys come in any order, or null. */
export function readFieldsAnyOrder(buf: Buffer, start: number, end: number): LightFields | null {
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
    return s ? readString(buf, s.start, s.end) : undefined;
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
      if (c.literal(P_NULL)) {
        parentId = null;
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
  const extra = ENTRY_TYPES.get(type);
  if (extra === "role" && role === undefined) return null;
  return { type, id, parentId, timestamp, role: extra === "role" ? role : undefined, customType: extra === "customType" ? customType : undefined, bodyAt: -1 };
}
