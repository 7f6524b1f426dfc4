// A session file opened for reading or for writing: the in-memory index of its tree, lazy
// parsing of entries, appends, leaf moves, forks. One writer per file (FileLock).
import { randomUUID } from "node:crypto";
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, statSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { StoredMessage } from "../messages/types.js";
import { PRIVATE_DIR, PRIVATE_FILE, fsyncDir, writeAll, writeFileAtomic } from "./atomic-write.js";
import { buildSessionContext, latestCompactionIndex, type SessionContext } from "./context.js";
import { SessionError, pathError, type SessionWarning } from "./errors.js";
import { newEntryId } from "./ids.js";
import { inSlices, readRange } from "./line-reader.js";
import { assertSessionHeader, linkRecords, scanSessionFile, scanSessionFileAsync, type EntryRecord, type ScanResult } from "./load.js";
import { FileLock } from "./lock.js";
import { migrateLines, serializeLines } from "./migrate.js";
import { defaultSessionsDir, sessionFilePath } from "./paths.js";
import { sketchFromLine } from "./sketch-bytes.js";
import { buildTreeView, sketchOf, type EntrySketch, type TreeView } from "./tree.js";
import {
  CURRENT_SESSION_VERSION,
  KNOWN_ENTRY_TYPES,
  LEAF_MARKER_TYPE,
  TORN_MARKER_TYPE,
  isBookkeeping,
  isBookkeepingType,
  type CompactionEntry,
  type CustomEntry,
  type LabelEntry,
  type NewEntry,
  type SessionEntry,
  type SessionHeader,
  type SessionInfoEntry,
} from "./types.js";

export interface OpenOptions {
  /** open without the write lock; appends are refused and old formats are migrated in memory only */
  readOnly?: boolean;
  /** parse every line in full instead of reading light fields (slower; what the light path must equal) */
  fullParse?: boolean;
}

export interface CreateOptions {
  cwd: string;
  sessionsDir?: string;
  parentSession?: string;
}

export interface AppendOptions {
  /** fsync after writing (always done for compactions and branch summaries) */
  sync?: boolean;
}

const UNREADABLE = "unreadable";
/** A run read at once holds neighbouring lines up to this many bytes, */
const RUN_BYTES = 4 << 20;
/** with gaps (lines not asked for, e.g. bookkeeping) of at most this many. */
const RUN_GAP_BYTES = 64 << 10;

/** An entry of a fork's path, serialized. */
interface ForkLine {
  id: string;
  line: string;
}

/** Adds `e` to a fork's lines unless a fork leaves it behind (labels are re-applied, bookkeeping stays). */
function forkLine(e: SessionEntry, lines: ForkLine[]): void {
  if (e.type !== "label" && !isBookkeeping(e)) lines.push({ id: e.id, line: JSON.stringify(e) });
}

export class SessionFile {
  readonly file: string;
  readonly readOnly: boolean;
  readonly warnings: SessionWarning[];
  /** set when opening migrated the file: where the original was kept */
  readonly backupFile?: string;
  private headerValue: SessionHeader;
  private records: EntryRecord[];
  private byId: Map<string, EntryRecord>;
  private leaf: string | null;
  private fd: number | null;
  private lock: FileLock | null;
  private needsNewline: boolean;
  /** a line cut short by a crash, not yet recorded as torn in the file */
  private tornLine: { offset: number } | undefined;
  private size: number;
  private labelCache: Map<string, string> | null = null;
  /** records root -> leaf for the current leaf; kept up to date on append, rebuilt after a move */
  private leafPath: EntryRecord[] | null = null;
  /** the last model / thinking setters before the kept part of the current leaf's path */
  private settersCache: { path: EntryRecord[]; start: number; thinking?: EntryRecord; model?: EntryRecord } | null = null;

  private constructor(file: string, scan: ScanResult, fd: number, lock: FileLock | null, backupFile: string | undefined) {
    this.file = file;
    this.readOnly = lock === null;
    this.fd = fd;
    this.lock = lock;
    this.backupFile = backupFile;
    this.headerValue = scan.header;
    this.records = scan.records;
    this.warnings = scan.warnings;
    this.needsNewline = scan.needsNewline;
    this.tornLine = scan.tornLine;
    this.size = scan.size;
    this.byId = linkRecords(this.records, this.warnings);
    this.leaf = this.resolveLeaf();
    // walking the tree is part of opening: later reads of the active path cost nothing
    this.leafPath = this.walkToRoot(this.leaf);
  }

  /** Creates a new session file (header written and synced before this returns) and opens it for writing. */
  static create(options: CreateOptions): SessionFile {
    const id = randomUUID();
    const timestamp = new Date().toISOString();
    const cwd = resolve(options.cwd);
    const file = sessionFilePath(options.sessionsDir ?? defaultSessionsDir(), cwd, timestamp, id);
    const header: SessionHeader = { type: "session", version: CURRENT_SESSION_VERSION, id, timestamp, cwd };
    if (options.parentSession) header.parentSession = options.parentSession;
    writeNewFile(file, JSON.stringify(header) + "\n");
    return SessionFile.open(file);
  }

  /** Opens an existing file; v1 / v2 files are migrated to v3 (original kept as `<file>.v<N>.bak`). */
  static open(path: string, options: OpenOptions = {}): SessionFile {
    const opened = SessionFile.begin(path, options);
    return SessionFile.settle(opened, () => SessionFile.finish(opened, scanSessionFile(opened.fd, opened.file, options.fullParse), options));
  }

  /**
   * `open`, giving the event loop back every few milliseconds while it scans: a daemon's other
   * sessions keep being served while a 100 MB session opens.
   */
  static async openAsync(path: string, options: OpenOptions = {}): Promise<SessionFile> {
    const opened = SessionFile.begin(path, options);
    let scan: ScanResult;
    try {
      scan = await scanSessionFileAsync(opened.fd, opened.file, options.fullParse);
    } catch (err) {
      return SessionFile.settle(opened, () => {
        throw err;
      });
    }
    return SessionFile.settle(opened, () => SessionFile.finish(opened, scan, options));
  }

  /** The checks before anything is read: the path, a session header, the write lock. Then the file, opened. */
  private static begin(path: string, options: OpenOptions): { file: string; fd: number; lock: FileLock | null } {
    if (path.includes("\0")) throw new SessionError("InvalidPath", `not a valid path (it holds a NUL character): ${JSON.stringify(path.slice(0, 200))}`, { file: path.slice(0, 200) });
    const file = resolve(path);
    let stat;
    try {
      stat = statSync(file);
    } catch (err) {
      throw pathError(err, file) ?? err;
    }
    if (!stat.isFile()) throw new SessionError("NotASession", `not a session file (${stat.isDirectory() ? "a directory" : "not a regular file"}): ${file}`, { file });
    // not a session: refused before a lock file is created beside it
    try {
      const probe = openSync(file, "r");
      try {
        assertSessionHeader(probe, file);
      } finally {
        closeSync(probe);
      }
    } catch (err) {
      throw err instanceof SessionError ? err : (pathError(err, file) ?? err);
    }
    let lock: FileLock | null = null;
    try {
      if (!options.readOnly) lock = FileLock.acquire(file);
    } catch (err) {
      // a folder the lock cannot be made in is the caller's path, not our failure
      throw err instanceof SessionError ? err : (pathError(err, file) ?? err);
    }
    try {
      return { file, fd: openSync(file, options.readOnly ? "r" : "a+"), lock };
    } catch (err) {
      lock?.release();
      throw err instanceof SessionError ? err : (pathError(err, file) ?? err);
    }
  }

  /** Runs `fn`; if it throws, the file is closed and the lock released, and the error says whose mistake it was. */
  private static settle(opened: { file: string; fd: number; lock: FileLock | null }, fn: () => SessionFile): SessionFile {
    try {
      return fn();
    } catch (err) {
      if (opened.fd >= 0) closeSync(opened.fd);
      opened.lock?.release();
      throw err instanceof SessionError ? err : (pathError(err, opened.file) ?? err);
    }
  }

  /** From the scan to the open session: an old format is migrated (on disk when writable). */
  private static finish(opened: { file: string; fd: number; lock: FileLock | null }, first: ScanResult, options: OpenOptions): SessionFile {
    const { file, lock } = opened;
    let scan = first;
    let backupFile: string | undefined;
    if (scan.lines) {
      const migrated = migrateLines(scan.lines);
      if (!options.readOnly) {
        backupFile = backupPath(file, scan.version);
        copyFileSync(file, backupFile);
        writeFileAtomic(file, serializeLines(migrated));
        closeSync(opened.fd);
        opened.fd = -1;
        opened.fd = openSync(file, "a+");
        scan = { ...scanSessionFile(opened.fd, file), warnings: scan.warnings };
      } else {
        scan = inMemoryScan(scan, migrated);
      }
    }
    return new SessionFile(file, scan, opened.fd, lock, backupFile);
  }

  get header(): SessionHeader {
    return this.headerValue;
  }
  get sessionId(): string {
    return this.headerValue.id;
  }
  get cwd(): string {
    return this.headerValue.cwd;
  }
  /** the active position: appends become its children; null = before the first entry */
  get leafId(): string | null {
    return this.leaf;
  }
  get entryCount(): number {
    return this.records.length;
  }
  get isClosed(): boolean {
    return this.fd === null;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The entry with this id, parsed on first use. */
  entry(id: string): SessionEntry | undefined {
    const rec = this.byId.get(id);
    return rec ? this.parse(rec) : undefined;
  }

  /**
   * All entries in file order (parses every line: for stats, tools and tests, not hot paths).
   * Entries not parsed before are not kept: a huge file's entries must not all stay in memory.
   */
  entries(): SessionEntry[] {
    return this.records.map((r) => this.parse(r, false));
  }

  /** Whether `entryId` lies on the path root -> `leafId` (null: before the first entry, on every path). */
  isOnPath(entryId: string | null, leafId: string | null = this.leaf): boolean {
    if (entryId === null) return true;
    const path = this.pathRecords(leafId);
    // the entry asked about is usually recent: search from the leaf
    for (let i = path.length - 1; i >= 0; i--) if (path[i].id === entryId) return true;
    return false;
  }

  /**
   * The entries root -> `leafId` (default: the active leaf). `keep: false` parses without caching
   * (a branch summary or a fork reads a path once; keeping it would pin the whole branch).
   */
  branchPath(leafId: string | null = this.leaf, options: { keep?: boolean } = {}): SessionEntry[] {
    const keep = options.keep ?? true;
    return this.pathRecords(leafId).map((r) => this.parse(r, keep));
  }

  /** The message list the model sees, with the model and thinking level in effect. */
  buildContext(leafId: string | null = this.leaf): SessionContext {
    const entries: SessionEntry[] = [];
    for (const [, e] of this.parsedRuns(this.contextRecords(leafId), true)) entries.push(e);
    return buildSessionContext(entries);
  }

  /**
   * Parses (and keeps) the entries the context is built from, giving the event loop back every
   * few milliseconds: the first context of a long session that was never compacted is the whole
   * file, which must not stall a daemon's other sessions. buildContext is then quick.
   */
  async warmContextAsync(leafId: string | null = this.leaf): Promise<void> {
    await this.eachParsedAsync(this.contextRecords(leafId), true, () => undefined);
  }

  /** The records buildContext reads for `leafId`, in order. */
  private contextRecords(leafId: string | null): EntryRecord[] {
    const path = this.pathRecords(leafId);
    const compactionIdx = latestCompactionIndex(path);
    if (compactionIdx < 0) return path;
    // Only entries from the first kept one on are messages; earlier ones can only set the
    // model or thinking level, so only the last of each kind is read.
    const compaction = this.parse(path[compactionIdx]) as CompactionEntry;
    // the first kept entry lies shortly before the compaction: search back from it
    let start = compactionIdx;
    for (let i = compactionIdx - 1; i >= 0; i--) {
      if (path[i].id === compaction.firstKeptEntryId) {
        start = i;
        break;
      }
    }
    const lastBefore = (match: (r: EntryRecord) => boolean) => {
      for (let i = start - 1; i >= 0; i--) if (match(path[i])) return path[i];
      return undefined;
    };
    // the setters before the kept part do not change while the leaf only moves forward
    let setters = this.settersCache;
    if (!setters || setters.path !== path || setters.start !== start) {
      setters = {
        path,
        start,
        thinking: lastBefore((r) => r.type === "thinking_level_change"),
        model: lastBefore((r) => r.type === "model_change" || (r.type === "message" && this.roleOf(r) === "assistant")),
      };
      if (path === this.leafPath) this.settersCache = setters;
    }
    const { thinking, model } = setters;
    const selected = [thinking, model].filter((r): r is EntryRecord => r !== undefined).sort((a, b) => a.lineNo - b.lineNo);
    for (let i = start; i < path.length; i++) selected.push(path[i]);
    return selected;
  }

  /** Every entry (leaf markers left out) with a preview and label, children in timestamp order. */
  tree(): TreeView {
    const visible = this.visibleRecords();
    for (const [r, sketch] of this.sketchedRuns(visible.filter((r) => !r.sketch))) r.sketch = sketch;
    return buildTreeView(visible, (r) => this.sketch(r), this.labels(), this.leaf);
  }

  /**
   * The same tree, with the first sketch of each entry computed in slices that give the event
   * loop back in between: the first tree of a 100 MB session parses every entry (about a
   * second), which must not stall a daemon's other sessions.
   */
  async treeAsync(options: { sliceMs?: number } = {}): Promise<TreeView> {
    const visible = this.visibleRecords();
    await inSlices(this.sketchedRuns(visible.filter((r) => !r.sketch)), ([r, sketch]) => (r.sketch = sketch), () => this.assertOpen(), options.sliceMs);
    return buildTreeView(visible, (r) => this.sketch(r), this.labels(), this.leaf);
  }

  /** parsedRuns in slices of SLICE_MS, the event loop given back in between. */
  private eachParsedAsync(records: readonly EntryRecord[], keep: boolean, visit: (r: EntryRecord, e: SessionEntry) => void): Promise<void> {
    return inSlices(this.parsedRuns(records, keep), ([r, e]) => visit(r, e), () => this.assertOpen());
  }

  private assertOpen(): void {
    if (this.fd === null) throw new SessionError("SessionClosed", `session is closed: ${this.file}`);
  }

  /** The entries of `records` (in file order), read in runs (see lineRuns). */
  private *parsedRuns(records: readonly EntryRecord[], keep: boolean): Generator<[EntryRecord, SessionEntry]> {
    for (const l of this.lineRuns(records)) yield [l.rec, l.buf ? this.parseText(l.rec, l.buf.toString("utf8", l.start, l.end), keep) : this.parse(l.rec, keep)];
  }

  /** The tree's sketches of `records`, from their lines' bytes where that is enough, else parsed (not kept). */
  private *sketchedRuns(records: readonly EntryRecord[]): Generator<[EntryRecord, EntrySketch]> {
    for (const l of this.lineRuns(records)) {
      const fromBytes = l.buf ? sketchFromLine(l.buf, l.start, lineContentEnd(l.buf, l.start, l.end)) : undefined;
      yield [l.rec, fromBytes ?? sketchOf(l.buf ? this.parseText(l.rec, l.buf.toString("utf8", l.start, l.end), false) : this.parse(l.rec, false))];
    }
  }

  /**
   * The lines of `records` (in file order), each run of neighbouring lines read with one read (a
   * pread per entry was most of the first tree's time). An entry already parsed, or that lives in
   * memory only, comes without bytes.
   */
  private *lineRuns(records: readonly EntryRecord[]): Generator<{ rec: EntryRecord; buf?: Buffer; start: number; end: number }> {
    let i = 0;
    while (i < records.length) {
      const first = records[i];
      if (first.entry || first.length === 0) {
        yield { rec: first, start: 0, end: 0 };
        i++;
        continue;
      }
      let j = i + 1;
      let end = first.offset + first.length;
      for (; j < records.length; j++) {
        const r = records[j];
        if (r.entry || r.length === 0 || r.offset < end || r.offset - end > RUN_GAP_BYTES || r.offset + r.length - first.offset > RUN_BYTES) break;
        end = r.offset + r.length;
      }
      if (this.fd === null) throw new SessionError("SessionClosed", `session is closed: ${this.file}`);
      const buf = readRange(this.fd, first.offset, end - first.offset);
      for (let k = i; k < j; k++) {
        const r = records[k];
        const at = r.offset - first.offset;
        yield { rec: r, buf, start: at, end: at + r.length };
      }
      i = j;
    }
  }

  private visibleRecords(): EntryRecord[] {
    return this.records.filter((r) => !(r.type === "custom" && isBookkeepingType(r.customType)));
  }

  /** An entry's preview: parsed without keeping the entry (a huge file's tree must not hold every entry), kept itself. */
  private sketch(r: EntryRecord): EntrySketch {
    return (r.sketch ??= sketchOf(this.parse(r, false)));
  }

  /** Current labels by target entry id (the latest label entry per target wins; empty clears). */
  labels(): Map<string, string> {
    if (!this.labelCache) {
      const labels = new Map<string, string>();
      for (const r of this.records) {
        if (r.type !== "label") continue;
        const e = this.parse(r) as LabelEntry;
        if (e.label) labels.set(e.targetId, e.label);
        else labels.delete(e.targetId);
      }
      this.labelCache = labels;
    }
    return this.labelCache;
  }

  /** The display name from the latest session_info entry, if any. */
  name(): string | undefined {
    for (let i = this.records.length - 1; i >= 0; i--) {
      const r = this.records[i];
      if (r.type !== "session_info") continue;
      const name = (this.parse(r) as SessionInfoEntry).name;
      if (name) return name;
    }
    return undefined;
  }

  /** Appends an entry as a child of the leaf and makes it the leaf. The line is written when this returns. */
  append(input: NewEntry, options: AppendOptions = {}): SessionEntry {
    this.assertWritable();
    validateNewEntry(input);
    const { type, timestamp, ...rest } = input as NewEntry & Record<string, unknown>;
    const id = newEntryId(this.byId);
    // type, id, parentId, timestamp first (and role first in a message): readers find them without a full parse
    const entry = { type, id, parentId: this.leaf, timestamp: timestamp ?? new Date().toISOString(), ...rest } as SessionEntry;
    if (entry.type === "message") entry.message = Object.assign({ role: entry.message.role }, entry.message) as StoredMessage;
    const stored = this.writeEntry(entry, options.sync || type === "compaction" || type === "branch_summary");
    this.moveLeaf(id);
    return stored;
  }

  appendMessage(message: StoredMessage, options?: AppendOptions): SessionEntry {
    return this.append({ type: "message", message }, options);
  }

  appendModelChange(provider: string, modelId: string): SessionEntry {
    return this.append({ type: "model_change", provider, modelId });
  }

  appendThinkingLevelChange(thinkingLevel: string): SessionEntry {
    return this.append({ type: "thinking_level_change", thinkingLevel });
  }

  /** Sets (or, with an empty label, clears) a label on an entry. */
  setLabel(targetId: string, label: string | undefined): SessionEntry {
    this.requireEntry(targetId);
    const entry = this.append({ type: "label", targetId, label: label || undefined });
    this.labelCache = null;
    return entry;
  }

  setName(name: string): SessionEntry {
    return this.append({ type: "session_info", name: name.trim() });
  }

  /**
   * Moves the leaf to `targetId` (null: before the first entry). The move is persisted as a
   * `custom` entry of type "pith.leaf", a child of the target written last in the file: Pi
   * resumes at the last entry of a file, and custom entries are not messages, so both programs
   * reopen at the target with the target's context.
   */
  branch(targetId: string | null): void {
    this.assertWritable();
    if (targetId !== null) this.requireEntry(targetId);
    if (targetId === this.leaf) return;
    const marker: CustomEntry = { type: "custom", id: newEntryId(this.byId), parentId: targetId, timestamp: new Date().toISOString(), customType: LEAF_MARKER_TYPE };
    this.writeEntry(marker, false);
    this.moveLeaf(targetId);
  }

  /**
   * Writes a bookkeeping entry (see isBookkeeping) as a child of the leaf, leaving the leaf
   * where it is; read it back with latestBookkeeping, whatever branch is active.
   */
  appendBookkeeping(customType: string, data: unknown, options: AppendOptions = {}): void {
    this.assertWritable();
    const entry: CustomEntry = { type: "custom", id: newEntryId(this.byId), parentId: this.leaf, timestamp: new Date().toISOString(), customType, data };
    if (!isBookkeeping(entry)) throw new SessionError("InvalidEntry", `${customType} is not a bookkeeping entry type`);
    this.writeEntry(entry, options.sync ?? false);
  }

  /** The data of the latest bookkeeping entry of this type in the file, on any branch. */
  latestBookkeeping(customType: string): unknown {
    return this.latestBookkeepingIndex(customType)?.data;
  }

  /**
   * The latest bookkeeping entry of this type and the entries written after it (parsed, not
   * kept): what happened after the state it records was saved.
   */
  latestBookkeepingTail(customType: string): { data: unknown; after: SessionEntry[] } | undefined {
    const found = this.latestBookkeepingIndex(customType);
    if (!found) return undefined;
    return { data: found.data, after: this.records.slice(found.index + 1).map((r) => this.parse(r, false)) };
  }

  private latestBookkeepingIndex(customType: string): { data: unknown; index: number } | undefined {
    for (let i = this.records.length - 1; i >= 0; i--) {
      const r = this.records[i];
      if (r.type === "custom" && r.customType === customType) return { data: (this.parse(r) as CustomEntry).data, index: i };
    }
    return undefined;
  }

  /** Moves the leaf to `targetId` and writes a branch summary there, which becomes the leaf. */
  branchWithSummary(targetId: string | null, summary: string, details?: unknown, fromHook?: boolean): SessionEntry {
    this.assertWritable();
    if (targetId !== null) this.requireEntry(targetId);
    this.moveLeaf(targetId);
    return this.append({ type: "branch_summary", fromId: targetId ?? "root", summary, details, fromHook });
  }

  /**
   * Writes a new session file holding the path root -> `entryId` (labels on it carried over)
   * and opens it for writing. Its header names this file as `parentSession`.
   */
  fork(entryId: string, options: { sessionsDir?: string; cwd?: string } = {}): SessionFile {
    this.requireEntry(entryId);
    const lines: ForkLine[] = [];
    for (const e of this.branchPath(entryId, { keep: false })) forkLine(e, lines);
    const fork = this.forkFile(lines, options);
    writeNewFile(fork.file, fork.lines.join("\n") + "\n");
    return SessionFile.open(fork.file);
  }

  /**
   * `fork`, giving the event loop back while it reads the path and opens the copy (a long
   * never-compacted branch is the whole file).
   */
  async forkAsync(entryId: string, options: { sessionsDir?: string; cwd?: string } = {}): Promise<SessionFile> {
    this.requireEntry(entryId);
    const lines: ForkLine[] = [];
    // serialized as they are read: a path's lines are a fraction of its parsed entries' heap
    await this.eachParsedAsync(this.pathRecords(entryId), false, (_r, e) => forkLine(e, lines));
    const fork = this.forkFile(lines, options);
    await writeNewFileAsync(fork.file, fork.lines);
    return SessionFile.openAsync(fork.file);
  }

  /** The fork's file name and lines: header, the path's lines, and its labels re-applied at the end. */
  private forkFile(path: readonly ForkLine[], options: { sessionsDir?: string; cwd?: string }): { file: string; lines: string[] } {
    const id = randomUUID();
    const timestamp = new Date().toISOString();
    const cwd = options.cwd ? resolve(options.cwd) : this.cwd;
    const header: SessionHeader = { type: "session", version: CURRENT_SESSION_VERSION, id, timestamp, cwd, parentSession: this.file };
    const labels = this.labels();
    const taken = new Set(path.map((e) => e.id));
    let parentId: string | null = path.length > 0 ? path[path.length - 1].id : null;
    const labelLines: string[] = [];
    for (const e of path) {
      const label = labels.get(e.id);
      if (!label) continue;
      const labelEntry: LabelEntry = { type: "label", id: newEntryId(taken), parentId, timestamp, targetId: e.id, label };
      taken.add(labelEntry.id);
      parentId = labelEntry.id;
      labelLines.push(JSON.stringify(labelEntry));
    }
    const file = sessionFilePath(options.sessionsDir ?? dirname(dirname(this.file)), cwd, timestamp, id);
    return { file, lines: [JSON.stringify(header), ...path.map((e) => e.line), ...labelLines] };
  }

  /** Flushes appended lines to stable storage. */
  sync(): void {
    if (this.fd !== null && !this.readOnly) fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd === null) return;
    try {
      if (!this.readOnly) fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
      this.fd = null;
      this.lock?.release();
      this.lock = null;
    }
  }

  // -- internals --

  private resolveLeaf(): string | null {
    let rec = this.records.length > 0 ? this.records[this.records.length - 1] : undefined;
    while (rec && rec.type === "custom" && isBookkeepingType(rec.customType)) {
      rec = rec.parentId === null ? undefined : this.byId.get(rec.parentId);
      if (!rec) return null;
    }
    return rec ? rec.id : null;
  }

  private pathRecords(leafId: string | null): EntryRecord[] {
    if (leafId !== this.leaf) return this.walkToRoot(leafId);
    this.leafPath ??= this.walkToRoot(leafId);
    return this.leafPath;
  }

  private walkToRoot(leafId: string | null): EntryRecord[] {
    if (leafId === null) return [];
    const path: EntryRecord[] = [];
    let rec = this.byId.get(leafId);
    if (!rec) throw new SessionError("EntryNotFound", `no entry ${leafId} in this session`, { entryId: leafId });
    while (rec) {
      path.push(rec);
      rec = rec.parentId === null ? undefined : this.byId.get(rec.parentId);
    }
    return path.reverse();
  }

  /** Moves the leaf, extending the cached path when the new leaf is a child of the old one. */
  private moveLeaf(id: string | null): void {
    const rec = id === null ? undefined : this.byId.get(id);
    if (this.leafPath && rec && rec.parentId === this.leaf) this.leafPath.push(rec);
    else this.leafPath = null;
    this.leaf = id;
  }

  private roleOf(rec: EntryRecord): string | undefined {
    if (rec.role === undefined && rec.type === "message") rec.role = (this.parse(rec) as { message?: { role?: string } }).message?.role;
    return rec.role;
  }

  private parse(rec: EntryRecord, cache = true): SessionEntry {
    if (rec.entry) return rec.entry;
    if (this.fd === null) throw new SessionError("SessionClosed", `session is closed: ${this.file}`);
    return this.parseText(rec, readRange(this.fd, rec.offset, rec.length).toString("utf8"), cache);
  }

  /** An entry from its line's text (kept on the record when `cache`). */
  private parseText(rec: EntryRecord, text: string, cache: boolean): SessionEntry {
    if (rec.entry) return rec.entry;
    let entry: SessionEntry;
    try {
      entry = JSON.parse(text) as SessionEntry;
      if (typeof entry !== "object" || entry === null) throw new Error("not an object");
    } catch {
      // the start of the line looked right but the rest is damaged: keep the node, drop its content
      this.warnings.push({ kind: "unreadable-entry", line: rec.lineNo, message: `entry ${rec.id} (line ${rec.lineNo}) is damaged; left out of the context` });
      entry = { type: UNREADABLE, id: rec.id, parentId: rec.parentId, timestamp: rec.timestamp } as unknown as SessionEntry;
    }
    // the tree's parent may differ from the stored one (dangling parents are re-attached)
    if (entry.parentId !== rec.parentId) entry = { ...entry, parentId: rec.parentId };
    if (cache) rec.entry = entry;
    return entry;
  }

  /** Writes the line and indexes it; returns the entry as a reader of the file will see it. */
  private writeEntry(input: SessionEntry, sync: boolean): SessionEntry {
    if (this.tornLine) {
      // first say which line the crash cut, so no later read mistakes it for an entry
      const torn = this.tornLine;
      this.tornLine = undefined;
      const marker: CustomEntry = { type: "custom", id: newEntryId(this.byId), parentId: this.leaf, timestamp: new Date().toISOString(), customType: TORN_MARKER_TYPE, data: torn };
      this.writeEntry(marker, false);
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
      writeAll(this.fd as number, bytes);
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
      lineNo: (this.records.length > 0 ? this.records[this.records.length - 1].lineNo : 1) + 1 + (prefix ? 1 : 0),
      offset: this.size + prefix.length,
      length: bytes.length - prefix.length,
      entry,
    };
    this.size += bytes.length;
    this.needsNewline = false;
    this.records.push(rec);
    this.byId.set(rec.id, rec);
    if (sync) this.sync();
    return entry;
  }

  private requireEntry(id: string): EntryRecord {
    const rec = this.byId.get(id);
    if (!rec) throw new SessionError("EntryNotFound", `no entry ${id} in this session`, { entryId: id });
    return rec;
  }

  private assertWritable(): void {
    if (this.fd === null) throw new SessionError("SessionClosed", `session is closed: ${this.file}`);
    if (this.readOnly) throw new SessionError("ReadOnly", `session was opened read-only: ${this.file}`);
  }
}

function validateNewEntry(input: NewEntry): void {
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
}

function writeNewFile(file: string, content: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR });
  const fd = openSync(file, "wx", PRIVATE_FILE);
  try {
    writeAll(fd, Buffer.from(content));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncDir(dirname(file));
}

/** writeNewFile for a big file (a fork of a long branch): written a megabyte at a time and synced off the event loop. */
async function writeNewFileAsync(file: string, lines: readonly string[]): Promise<void> {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR });
  const handle = await fsp.open(file, "wx", PRIVATE_FILE);
  try {
    let batch: string[] = [];
    let size = 0;
    for (const line of lines) {
      batch.push(line);
      size += line.length + 1;
      if (size >= 1 << 20) {
        await handle.write(batch.join("\n") + "\n");
        batch = [];
        size = 0;
      }
    }
    if (batch.length > 0) await handle.write(batch.join("\n") + "\n");
    await handle.sync();
  } finally {
    await handle.close();
  }
  fsyncDir(dirname(file));
}

function backupPath(file: string, version: number): string {
  const base = `${file}.v${version}.bak`;
  if (!existsSync(base)) return base;
  for (let n = 1; ; n++) if (!existsSync(`${base}.${n}`)) return `${base}.${n}`;
}

/** A read-only view of an old-format file: the migrated entries live in memory only. */
function inMemoryScan(scan: ScanResult, migrated: ReturnType<typeof migrateLines>): ScanResult {
  const records: EntryRecord[] = [];
  let lineNo = 1;
  for (const l of migrated.slice(1)) {
    lineNo++;
    if (!("json" in l)) continue;
    const e = l.json as unknown as SessionEntry;
    if (typeof e.id !== "string") continue;
    records.push({
      type: e.type,
      id: e.id,
      parentId: typeof e.parentId === "string" ? e.parentId : null,
      timestamp: e.timestamp,
      role: e.type === "message" ? e.message?.role : undefined,
      customType: e.type === "custom" ? e.customType : undefined,
      lineNo,
      offset: 0,
      length: 0,
      entry: e,
    });
  }
  return { ...scan, header: migrated[0] && "json" in migrated[0] ? (migrated[0].json as SessionHeader) : scan.header, records };
}


/** The end of a line's content in `buf`: before its "\n" (and a "\r" before that). */
function lineContentEnd(buf: Buffer, start: number, end: number): number {
  let e = end;
  if (e > start && buf[e - 1] === 0x0a) e--;
  if (e > start && buf[e - 1] === 0x0d) e--;
  return e;
}
