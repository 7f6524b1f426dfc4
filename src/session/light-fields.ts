// Reads the few fields the tree needs (type, id, parentId, timestamp, message role) from the
// front of an entry line without parsing the rest of it. Pi and pith write entries with these
// keys first and in this order; any other line gets null here and is parsed in full instead.

export interface LightFields {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
  /** message role, for `message` entries */
  role?: string;
  /** for `custom` entries (pith writes it right after the timestamp) */
  customType?: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;

const P_TYPE = Buffer.from('{"type":"');
const P_ID = Buffer.from('","id":"');
const P_PARENT = Buffer.from('","parentId":');
const P_NULL = Buffer.from("null");
const P_TIMESTAMP = Buffer.from(',"timestamp":"');
const P_ROLE = Buffer.from('","message":{"role":"');
const P_CUSTOM_TYPE = Buffer.from('","customType":"');

/**
 * The strings a session repeats on every line (entry types, roles), interned: one string per
 * value rather than one per line (600,000 copies of "message" in a session of tiny entries).
 */
const INTERNED = new Map<string, string>();
for (const v of ["message", "compaction", "branch_summary", "model_change", "thinking_level_change", "custom", "custom_message", "label", "session_info", "user", "assistant", "toolResult", "bashExecution", "branchSummary", "compactionSummary"]) INTERNED.set(v, v);

export function readString(buf: Buffer, start: number, end: number): string {
  const s = buf.toString("utf8", start, end);
  return INTERNED.get(s) ?? s;
}

function startsWithAt(buf: Buffer, pos: number, end: number, lit: Buffer): boolean {
  if (pos + lit.length > end) return false;
  return buf.compare(lit, 0, lit.length, pos, pos + lit.length) === 0;
}

/** Longest field the light path reads (type, id, parentId, timestamp, role, customType): more is not light. */
const MAX_FIELD = 256;

/**
 * Index of the closing quote of a string starting at `pos`, or -1 if it has an escape or runs
 * past `end` or MAX_FIELD. Bounded by the field, never by the buffer: a search to the end of a
 * 4 MiB chunk per field, five fields a line, cost 50x a plain parse on escape-free text.
 */
function stringEnd(buf: Buffer, pos: number, end: number): number {
  const limit = Math.min(end, pos + MAX_FIELD);
  for (let i = pos; i < limit; i++) {
    const c = buf[i];
    if (c === QUOTE) return i;
    if (c === BACKSLASH) return -1;
  }
  return -1;
}

export function readLightFields(buf: Buffer, start: number, end: number): LightFields | null {
  // A line cut short by a crash almost never ends in "}": send those to the full parser.
  if (end <= start || buf[end - 1] !== CLOSE_BRACE) return null;
  let pos = start;
  if (!startsWithAt(buf, pos, end, P_TYPE)) return null;
  pos += P_TYPE.length;
  let q = stringEnd(buf, pos, end);
  if (q < 0) return null;
  const type = readString(buf, pos, q);
  pos = q;
  if (!startsWithAt(buf, pos, end, P_ID)) return null;
  pos += P_ID.length;
  q = stringEnd(buf, pos, end);
  if (q <= pos) return null; // ids are non-empty
  const id = buf.toString("utf8", pos, q);
  pos = q;
  if (!startsWithAt(buf, pos, end, P_PARENT)) return null;
  pos += P_PARENT.length;
  let parentId: string | null;
  if (startsWithAt(buf, pos, end, P_NULL)) {
    parentId = null;
    pos += P_NULL.length;
  } else {
    if (buf[pos] !== QUOTE) return null;
    q = stringEnd(buf, pos + 1, end);
    if (q < 0) return null;
    parentId = buf.toString("utf8", pos + 1, q);
    pos = q + 1;
  }
  if (!startsWithAt(buf, pos, end, P_TIMESTAMP)) return null;
  pos += P_TIMESTAMP.length;
  q = stringEnd(buf, pos, end);
  if (q < 0) return null;
  const timestamp = buf.toString("utf8", pos, q);
  pos = q;
  let role: string | undefined;
  let customType: string | undefined;
  if (type === "message") {
    if (!startsWithAt(buf, pos, end, P_ROLE)) return null;
    pos += P_ROLE.length;
    q = stringEnd(buf, pos, end);
    if (q < 0) return null;
    role = readString(buf, pos, q);
  } else if (type === "custom") {
    // what a custom entry is (pith's bookkeeping, an extension's state) must be known without a parse
    if (!startsWithAt(buf, pos, end, P_CUSTOM_TYPE)) return null;
    pos += P_CUSTOM_TYPE.length;
    q = stringEnd(buf, pos, end);
    if (q < 0) return null;
    customType = readString(buf, pos, q);
  }
  // one object shape for every record (callers add their own fields to it)
  return { type, id, parentId, timestamp, role, customType };
}
