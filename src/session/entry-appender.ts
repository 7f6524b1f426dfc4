// The write path of a session file: each entry is one line, written whole before the index
// learns of it, so what the index holds is what a reader of the file finds. A line that a crash
// (or a failed write) cut short is first recorded as torn, so no later read mistakes it for an
// entry. Kept apart from SessionFile: this is where durability is decided.
import type { StoredMessage } from "../messages/types.js";
import { writeAll } from "./atomic-write.js";
import type { SinkLine } from "./durable-sink.js";
import type { SessionFd } from "./entry-reader.js";
import { SessionError } from "./session-error.js";
import type { EntryRecord, ScanResult } from "./load.js";
import type { SessionIndex } from "./session-index.js";
import { KNOWN_ENTRY_TYPES, TORN_MARKER_TYPE, type CustomEntry, type NewEntry, type SessionEntry } from "./types.js";

export class EntryAppender {
  /** the file does not end in "\n": the next line must start a fresh one */
  private needsNewline: boolean;
  /** a line cut short by a crash, not yet recorded as torn in the file */
  private tornLine: { offset: number } | undefined;
  /** where the next line starts */
  private size: number;

  constructor(
    private readonly handle: SessionFd,
    scan: Pick<ScanResult, "needsNewline" | "tornLine" | "size">,
    private readonly index: SessionIndex,
    /** told of each line once it is written (a shared store's sink) */
    private readonly onLine?: (line: SinkLine) => void,
  ) {
    this.needsNewline = scan.needsNewline;
    this.tornLine = scan.tornLine;
    this.size = scan.size;
  }

  /**
   * Writes the line and indexes it (the leaf is the caller's to move); returns the entry as a
   * reader of the file will see it. The caller has checked the session is open for writing, and
   * syncs (SessionFile.sync) when the entry must be durable.
   */
  write(input: SessionEntry): SessionEntry {
    const fd = this.handle.fd as number;
    if (this.tornLine) {
      // first say which line the crash cut, so no later read mistakes it for an entry
      const torn = this.tornLine;
      this.tornLine = undefined;
      const marker: CustomEntry = { type: "custom", id: this.index.newId(), parentId: this.index.leafId, timestamp: new Date().toISOString(), customType: TORN_MARKER_TYPE, data: torn };
      this.write(marker);
    }
    let json: string;
    let entry: SessionEntry;
    try {
      json = JSON.stringify(input);
      // the stored copy is what the file says: no undefined fields, no later mutation by the caller
      entry = JSON.parse(json) as SessionEntry;
    } catch (err) {
      throw new SessionError("InvalidEntry", `entry cannot be written as JSON: ${(err as Error).message}`);
    }
    const prefix = this.needsNewline ? "\n" : "";
    const bytes = Buffer.from(prefix + json + "\n");
    try {
      writeAll(fd, bytes);
    } catch (err) {
      // part of the line may be on disk: the next line starts fresh and records it as torn
      this.needsNewline = true;
      this.tornLine = { offset: this.size + prefix.length };
      throw err;
    }
    const rec: EntryRecord = {
      type: entry.type,
      id: entry.id,
      parentId: entry.parentId,
      timestamp: entry.timestamp,
      role: entry.type === "message" ? entry.message.role : undefined,
      customType: entry.type === "custom" ? entry.customType : undefined,
      bodyAt: -1,
      lineNo: this.index.nextLineNo(prefix !== ""),
      offset: this.size + prefix.length,
      length: bytes.length - prefix.length,
      entry,
    };
    this.size += bytes.length;
    this.needsNewline = false;
    this.index.add(rec);
    this.onLine?.({ id: entry.id, parentId: entry.parentId, type: entry.type, line: json });
    return entry;
  }
}

/** Refuses what is not an entry a session may hold (before an id is spent on it). */
export function validateNewEntry(input: NewEntry): void {
  const e = input as unknown as Record<string, unknown>;
  if (typeof e !== "object" || e === null || typeof e.type !== "string" || !KNOWN_ENTRY_TYPES.has(e.type)) {
    throw new SessionError("InvalidEntry", `unknown entry type: ${String(e?.type)}`);
  }
  if (e.type === "message") {
    const m = e.message as Record<string, unknown> | undefined;
    if (!m || typeof m !== "object" || typeof m.role !== "string") throw new SessionError("InvalidEntry", "a message entry needs a message with a role");
    if (m.role === "compactionSummary" || m.role === "branchSummary") {
      throw new SessionError("InvalidEntry", `${m.role} is stored as its own entry type, not as a message`);
    }
  }
  if (e.type === "context_edit") {
    const r = e.replacement as { content?: unknown } | null | undefined;
    const content = r?.content;
    if (typeof e.targetId !== "string" || (r !== null && typeof content !== "string" && !Array.isArray(content))) {
      throw new SessionError("InvalidEntry", "a context_edit needs a targetId and a replacement: null or {content: string | blocks}");
    }
  }
}

/** `input` as a full entry: type, id, parentId, timestamp first (and role first in a message), so readers find them without a full parse. */
export function entryOf(input: NewEntry, id: string, parentId: string | null): SessionEntry {
  const { type, timestamp, ...rest } = input as NewEntry & Record<string, unknown>;
  const entry = { type, id, parentId, timestamp: timestamp ?? new Date().toISOString(), ...rest } as SessionEntry;
  if (entry.type === "message") entry.message = Object.assign({ role: entry.message.role }, entry.message) as StoredMessage;
  return entry;
}
