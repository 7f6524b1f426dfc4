// Reading a session file into an index of light records. Only the fields the tree needs are read
// for most lines; full entries are parsed on demand (see SessionFile.entry).
import { fstatSync, readSync } from "node:fs";
import { SessionError, type SessionWarning } from "./session-error.js";
import { readEntryFields, type LightFields } from "./light-fields.js";
import { forEachLine, forEachLineAsync, type RawLine } from "./line-reader.js";
import { fileVersion, type FileLine } from "./migrate.js";
import { TORN_MARKER_TYPE, type CustomEntry, type SessionEntry, type SessionHeader } from "./types.js";

/** One entry of the file, as the index knows it: its light fields (a custom entry's customType tells pith's bookkeeping without a parse), and more. */
export interface EntryRecord extends LightFields {
  /** the parent the tree uses: the stored parentId, unless that points nowhere (see linkRecords) */
  parentId: string | null;
  lineNo: number;
  /** byte range of the line in the file; length 0 when the entry exists only in memory */
  offset: number;
  length: number;
  /** the parsed entry, once something asked for it (an entry that lives in memory only has it from the start) */
  entry?: SessionEntry;
  /** the tree's preview, once computed (entries never change, so neither does it) */
  preview?: string;
}

export interface ScanResult {
  header: SessionHeader;
  version: number;
  records: EntryRecord[];
  warnings: SessionWarning[];
  /** file lines as parsed JSON / raw text, only for files that need migration */
  lines?: FileLine[];
  /** true when the file does not end in "\n" (the next append must start a fresh line) */
  needsNewline: boolean;
  /** the last line, when a crash cut it short (the next append records it as torn) */
  tornLine?: { offset: number; length: number };
  size: number;
}

const MAX_HEADER_BYTES = 1 << 20;

export function isHeader(value: unknown): value is SessionHeader {
  const v = value as Record<string, unknown> | null;
  return typeof v === "object" && v !== null && !Array.isArray(v) && v.type === "session" && typeof v.id === "string" && v.id.length > 0;
}

function notASession(file: string, why: string): SessionError {
  return new SessionError("NotASession", `not a session file (${why}): ${file}`, { file, reason: why });
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A usable entry: an object with a string type and a non-empty string id. */
function asEntry(v: Record<string, unknown> | null): SessionEntry | null {
  if (!v || typeof v.type !== "string" || typeof v.id !== "string" || v.id.length === 0 || v.type === "session") return null;
  return v as unknown as SessionEntry;
}

/**
 * The record of a fully parsed line: the light fields and nothing more (a line in another key
 * order is parsed at open, but keeping what it parsed would pin the whole file in memory). An
 * entry with no bytes of its own (recovered from a torn line, migrated in memory) keeps itself.
 */
function recordOf(entry: SessionEntry, line: RawLine | null, keep = false): EntryRecord {
  const parentId = typeof entry.parentId === "string" ? entry.parentId : null;
  const customType = entry.type === "custom" ? (entry as CustomEntry).customType : undefined;
  return {
    type: entry.type,
    id: entry.id,
    parentId,
    timestamp: typeof entry.timestamp === "string" ? entry.timestamp : "",
    role: entry.type === "message" ? (entry.message as { role?: string } | undefined)?.role : undefined,
    customType: typeof customType === "string" ? customType : undefined,
    bodyAt: -1,
    lineNo: line ? line.lineNo : 0,
    offset: line ? line.offset : 0,
    length: line ? line.length : 0,
    entry: keep ? entry : undefined,
  };
}

/**
 * A line that did not parse may be a torn line followed by a whole entry (a crash mid-write,
 * then an append by a program that did not start a fresh line). Recover that entry.
 */
function recoverTail(text: string): SessionEntry | null {
  const at = text.lastIndexOf('{"type":"');
  if (at <= 0) return null;
  return asEntry(parseObject(text.slice(at)));
}

function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/** The header on a file's first line, or what is wrong with that line. */
function headerOf(line: RawLine): SessionHeader | string {
  if (line.end - line.start > MAX_HEADER_BYTES || line.buf[line.start] !== 0x7b /* { */) return "the first line is not a JSON session header";
  const value = parseObject(line.buf.toString("utf8", line.start, line.end));
  if (!isHeader(value)) return value ? 'the first line is not a header of type "session" with an id' : "the first line is not valid JSON";
  return value;
}

/**
 * Reads only the first line, and at most MAX_HEADER_BYTES of it (a huge file without a newline is
 * not read whole): throws NotASession unless it is a session header (checked before locking anything). Returns it.
 */
export function assertSessionHeader(fd: number, file: string): SessionHeader {
  let buf = Buffer.allocUnsafe(64 * 1024);
  let filled = 0;
  let nl = -1;
  for (;;) {
    if (filled === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, filled);
      buf = bigger;
    }
    const n = readSync(fd, buf, filled, buf.length - filled, filled);
    const from = filled;
    filled += n;
    if (filled > 0 && buf[0] !== 0x7b /* { */) throw notASession(file, "the first line is not a JSON session header");
    const at = buf.subarray(from, filled).indexOf(0x0a);
    if (at !== -1) {
      nl = from + at;
      break;
    }
    if (n === 0) break;
    if (filled > MAX_HEADER_BYTES + 1) throw notASession(file, "the first line is not a JSON session header");
  }
  if (filled === 0) throw notASession(file, "empty file");
  const end = nl === -1 ? filled : nl > 0 && buf[nl - 1] === 0x0d ? nl - 1 : nl;
  const checked = headerOf({ buf, start: 0, end, offset: 0, length: end, lineNo: 1, terminated: nl !== -1 });
  if (typeof checked === "string") throw notASession(file, checked);
  return checked;
}

export function scanSessionFile(fd: number, file: string, fullParse = false): ScanResult {
  const scan = sessionScanner(fd, file, fullParse);
  forEachLine(fd, scan.onLine);
  return scan.finish();
}

/** scanSessionFile, giving the event loop back as it goes (see forEachLineAsync). */
export async function scanSessionFileAsync(fd: number, file: string, fullParse = false): Promise<ScanResult> {
  const scan = sessionScanner(fd, file, fullParse);
  await forEachLineAsync(fd, scan.onLine);
  return scan.finish();
}

/**
 * What the scan does with each line, and its result, for either driver. `fullParse`: every line
 * through JSON.parse (what the light path must agree with; tests compare the two).
 */
function sessionScanner(fd: number, file: string, fullParse: boolean): { onLine: (line: RawLine) => boolean | void; finish(): ScanResult } {
  const size = fstatSync(fd).size;
  if (size === 0) throw notASession(file, "empty file");
  const warnings: SessionWarning[] = [];
  const records: EntryRecord[] = [];
  let header: SessionHeader | null = null;
  let headerProblem: string | null = null;
  let version = 3;
  let lines: FileLine[] | undefined;
  let needsNewline = false;
  let tornLine: ScanResult["tornLine"];

  const onLine = (line: RawLine): boolean | void => {
    if (line.lineNo === 1) {
      const checked = headerOf(line);
      if (typeof checked === "string") {
        headerProblem = checked;
        return false;
      }
      const value = checked;
      header = value;
      version = fileVersion(value);
      if (version < 3) lines = [{ json: value }];
      needsNewline = !line.terminated;
      return;
    }
    needsNewline = !line.terminated;
    // entries start with "{"; anything else is checked for being blank without building a string
    if (line.buf[line.start] !== 0x7b && isBlank(line.buf, line.start, line.end)) return;

    if (lines) {
      // an old format: parse everything, it is migrated as a whole
      const text = line.buf.toString("utf8", line.start, line.end);
      const value = parseObject(text);
      if (value) lines.push({ json: value });
      else {
        lines.push({ raw: text });
        warnings.push({
          kind: line.terminated ? "malformed-line" : "torn-line",
          line: line.lineNo,
          message: line.terminated ? `line ${line.lineNo} is not valid JSON; skipped (kept in the file)` : `the last line (${line.lineNo}) was cut short by a crash; ignored`,
        });
      }
      return;
    }

    // a last line without its newline may be cut anywhere, even right after a "}": parse it in full
    // Pi's key order is read from the line's start; any other order by walking its keys
    const light = line.terminated && !fullParse ? (readEntryFields(line.buf, line.start, line.end) as EntryRecord | null) : null;
    // a torn marker is read in full: it names the line to drop
    if (light && light.customType !== TORN_MARKER_TYPE) {
      light.lineNo = line.lineNo;
      light.offset = line.offset;
      light.length = line.length;
      records.push(light);
      return;
    }
    const text = line.buf.toString("utf8", line.start, line.end);
    const entry = asEntry(parseObject(text));
    if (entry && entry.type === "custom" && (entry as CustomEntry).customType === TORN_MARKER_TYPE) {
      dropTornRecord(records, warnings, (entry as CustomEntry).data);
    }
    if (entry) {
      records.push(recordOf(entry, line));
      return;
    }
    const recovered = recoverTail(text);
    if (!line.terminated) {
      tornLine = { offset: line.offset, length: line.length };
      warnings.push({ kind: "torn-line", line: line.lineNo, message: `the last line (${line.lineNo}, ${line.length} bytes) was cut short by a crash; ignored` });
    } else {
      warnings.push({
        kind: "malformed-line",
        line: line.lineNo,
        message: `line ${line.lineNo} is not a valid entry; skipped (kept in the file)${recovered ? ", the entry after its torn start was recovered" : ""}`,
      });
    }
    if (recovered) {
      // the recovered entry lives in memory; its bytes are inside a malformed line
      records.push(recordOf(recovered, { ...line, length: 0 }, true));
    }
  };

  return {
    onLine,
    finish: () => {
      if (!header) throw notASession(file, headerProblem ?? "no header line");
      return { header, version, records, warnings, lines, needsNewline, tornLine, size };
    },
  };
}

/** A torn marker names a line cut by a crash: if that line was read as an entry, drop it. */
function dropTornRecord(records: EntryRecord[], warnings: SessionWarning[], data: unknown): void {
  const offset = (data as { offset?: unknown } | undefined)?.offset;
  if (typeof offset !== "number") return;
  for (let i = records.length - 1; i >= 0; i--) {
    if (records[i].offset === offset && records[i].length > 0) {
      const [rec] = records.splice(i, 1);
      warnings.push({ kind: "malformed-line", line: rec.lineNo, message: `line ${rec.lineNo} was cut short by a crash (recorded when the file was repaired); skipped (kept in the file)` });
      return;
    }
    if (records[i].offset < offset) return;
  }
}

/**
 * Gives every record a parent that exists and precedes it in the file, so the tree has no
 * cycles and nothing is unreachable. An entry whose parentId points nowhere (or forward) is
 * attached to the entry just before it in the file, the most likely parent in an append-only
 * log; the file itself is not changed. Duplicate ids: the later entry wins lookups, as in Pi.
 */
export function linkRecords(records: EntryRecord[], warnings: SessionWarning[]): Map<string, EntryRecord> {
  const byId = new Map<string, EntryRecord>();
  let previous: EntryRecord | null = null;
  for (const rec of records) {
    if (rec.parentId !== null && (rec.parentId === rec.id || !byId.has(rec.parentId))) {
      warnings.push({
        kind: "dangling-parent",
        line: rec.lineNo,
        message: `entry ${rec.id} (line ${rec.lineNo}) names parent ${rec.parentId}, which is not an earlier entry; attached to ${previous ? previous.id : "the root"}`,
      });
      rec.parentId = previous ? previous.id : null;
    }
    // the parent's own id string: a second copy per entry is memory for nothing
    else if (rec.parentId !== null) rec.parentId = byId.get(rec.parentId)!.id;
    if (byId.has(rec.id)) {
      warnings.push({ kind: "duplicate-id", line: rec.lineNo, message: `entry id ${rec.id} (line ${rec.lineNo}) is used more than once; the later entry wins lookups` });
    }
    byId.set(rec.id, rec);
    previous = rec;
  }
  return byId;
}
