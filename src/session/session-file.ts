// A session file opened for reading or for writing: the in-memory tree over one file. One writer
// per file (FileLock); on a shared store the file is a local copy whose lines a sink commits
// (durable-sink.ts). Its parts: open-session, session-index, entry-reader, context-records,
// entry-appender, file-queries, fork-file. This class ties them together and checks what
// callers may do.
import { closeSync, fsyncSync } from "node:fs";
import type { DurableSink } from "./durable-sink.js";
import type { StoredMessage } from "../messages/types.js";
import { ContextRecords } from "./context-records.js";
import { EntryAppender, entryOf, validateNewEntry } from "./entry-appender.js";
import { EntryReader, sessionClosed, type SessionFd } from "./entry-reader.js";
import { buildLazyContext, UnreadContexts } from "./lazy-context.js";
import { SessionError, type SessionWarning } from "./session-error.js";
import { labelsIn, latestCustom, nameIn } from "./file-queries.js";
import { forkFile, forkLine, type ForkLine, type ForkOptions } from "./fork-file.js";
import { inSlices } from "./line-reader.js";
import { scanSessionFile, scanSessionFileAsync, type ScanResult } from "./load.js";
import type { FileLock } from "./lock.js";
import { writeNewFile } from "./new-file.js";
import { beginOpen, createSessionFile, migrateOnOpen, settleOpen, type CreateOptions, type OpenOptions, type OpeningFile } from "./open-session.js";
import { SessionIndex } from "./session-index.js";
import { buildTreeView, type TreeView } from "./tree.js";
import { LEAF_MARKER_TYPE, isBookkeeping, type CustomEntry, type NewEntry, type SessionEntry, type SessionHeader } from "./types.js";

export type { CreateOptions, OpenOptions } from "./open-session.js";

export interface AppendOptions {
  /** fsync after writing (always done for compactions and branch summaries) */
  sync?: boolean;
}

export class SessionFile {
  readonly file: string;
  readonly readOnly: boolean;
  readonly warnings: SessionWarning[];
  /** set when opening migrated the file: where the original was kept */
  readonly backupFile?: string;
  /** how clients name the session's file: its path, or a shared store's `pg:<id>` */
  readonly locator: string;
  /** a shared store's log, when the file is its local copy (see durable-sink.ts) */
  readonly sink: DurableSink | undefined;
  private readonly headerValue: SessionHeader;
  /** the open file, shared with the reader and the appender (fd null once closed) */
  private readonly handle: SessionFd;
  private lock: FileLock | null;
  private readonly index: SessionIndex;
  private readonly reader: EntryReader;
  private readonly appender: EntryAppender;
  private readonly context: ContextRecords;
  private labelCache: Map<string, string> | null = null;
  /** where the session works (`cwd`) when its opener named a directory, set before it goes live; the header on disk keeps its own */
  workCwd: string | undefined;
  private readonly unreadContexts = new UnreadContexts(); // their messages are built before the file closes

  private constructor(file: string, scan: ScanResult, fd: number, lock: FileLock | null, backupFile: string | undefined, options: OpenOptions) {
    this.file = file;
    this.locator = options.locator ?? file;
    this.sink = options.sink;
    this.readOnly = lock === null;
    this.handle = { file, fd };
    this.lock = lock;
    this.backupFile = backupFile;
    this.headerValue = scan.header;
    this.warnings = scan.warnings;
    this.index = new SessionIndex(scan.records, this.warnings);
    this.reader = new EntryReader(this.handle, this.warnings);
    this.appender = new EntryAppender(this.handle, scan, this.index, this.sink && ((line) => this.sink!.accept(line)));
    this.context = new ContextRecords(this.index, this.reader);
  }

  /** Creates a new session file (header written and synced before this returns) and opens it for writing. */
  static create(options: CreateOptions, open: OpenOptions = {}): SessionFile {
    return SessionFile.open(createSessionFile(options), open);
  }

  /** Opens an existing file; v1 / v2 files are migrated to v3 (original kept as `<file>.v<N>.bak`). */
  static open(path: string, options: OpenOptions = {}): SessionFile {
    const opened = beginOpen(path, options);
    return settleOpen(opened, () => SessionFile.finish(opened, scanSessionFile(opened.fd, opened.file, options.fullParse), options));
  }

  /** `open`, giving the event loop back while it scans (a daemon's other sessions keep being served). */
  static async openAsync(path: string, options: OpenOptions = {}): Promise<SessionFile> {
    const opened = beginOpen(path, options);
    let scan: ScanResult;
    try {
      scan = await scanSessionFileAsync(opened.fd, opened.file, options.fullParse);
    } catch (err) {
      return settleOpen(opened, () => {
        throw err;
      });
    }
    return settleOpen(opened, () => SessionFile.finish(opened, scan, options));
  }

  /** From the scan to the open session: an old format is migrated (on disk when writable). */
  private static finish(opened: OpeningFile, first: ScanResult, options: OpenOptions): SessionFile {
    const { scan, backupFile } = migrateOnOpen(opened, first, options);
    return new SessionFile(opened.file, scan, opened.fd, opened.lock, backupFile, options);
  }

  get header(): SessionHeader {
    return this.headerValue;
  }
  get sessionId(): string {
    return this.headerValue.id;
  }
  get cwd(): string {
    return this.workCwd ?? this.headerValue.cwd;
  }
  /** the active position: appends become its children; null = before the first entry */
  get leafId(): string | null {
    return this.index.leafId;
  }
  get entryCount(): number {
    return this.index.records.length;
  }
  get isClosed(): boolean {
    return this.handle.fd === null;
  }

  has(id: string): boolean {
    return this.index.byId.has(id);
  }

  /** The entry with this id, parsed on first use. */
  entry(id: string): SessionEntry | undefined {
    const rec = this.index.byId.get(id);
    return rec ? this.reader.parse(rec) : undefined;
  }

  /**
   * All entries in file order (parses every line: for stats, tools and tests, not hot paths).
   * Entries not parsed before are not kept: a huge file's entries must not all stay in memory.
   */
  entries(): SessionEntry[] {
    const reader = this.reader;
    return this.index.records.map((r) => reader.parse(r, false));
  }

  /** Whether `entryId` lies on the path root -> `leafId` (null: before the first entry, on every path). */
  isOnPath(entryId: string | null, leafId: string | null = this.leafId): boolean {
    if (entryId === null) return true;
    const path = this.index.path(leafId);
    // the entry asked about is usually recent: search from the leaf
    for (let i = path.length - 1; i >= 0; i--) if (path[i].id === entryId) return true;
    return false;
  }

  /**
   * The entries root -> `leafId` (default: the active leaf). `keep: false` parses without caching
   * (a branch summary or a fork reads a path once; keeping it would pin the whole branch).
   */
  branchPath(leafId: string | null = this.leafId, options: { keep?: boolean } = {}): SessionEntry[] {
    const keep = options.keep ?? true;
    const reader = this.reader;
    return this.index.path(leafId).map((r) => reader.parse(r, keep));
  }

  /** The message list the model sees, with the model and thinking level in effect. */
  buildContext(leafId: string | null = this.leafId) {
    return buildLazyContext(this.context.of(leafId), this.reader, this.unreadContexts);
  }

  /**
   * Parses (and keeps) the entries the context is built from, giving the event loop back every
   * few milliseconds: the first context of a long session that was never compacted is the whole
   * file, which must not stall a daemon's other sessions. buildContext is then quick.
   */
  async warmContextAsync(leafId: string | null = this.leafId): Promise<void> {
    await this.reader.eachParsedAsync(this.context.of(leafId), true, () => undefined);
  }

  /** Every entry (leaf markers left out) with a preview and label, children in timestamp order. */
  tree(): TreeView {
    const visible = this.index.visible();
    for (const _ of this.reader.previewMissing(visible.filter((r) => r.preview === undefined)));
    return buildTreeView(visible, (r) => this.reader.preview(r), this.labels(), this.leafId, this.index.uniqueIds);
  }

  /**
   * The same tree, with the first preview of each entry computed in slices that give the event
   * loop back in between: the first tree of a 100 MB session reads every line (about half a
   * second), which must not stall a daemon's other sessions.
   */
  async treeAsync(options: { sliceMs?: number } = {}): Promise<TreeView> {
    const visible = this.index.visible();
    await inSlices(this.reader.previewMissing(visible.filter((r) => r.preview === undefined)), () => undefined, () => this.reader.assertOpen(), options.sliceMs);
    return buildTreeView(visible, (r) => this.reader.preview(r), this.labels(), this.leafId, this.index.uniqueIds);
  }

  /** Current labels by target entry id (the latest label entry per target wins; empty clears). */
  labels(): Map<string, string> {
    return (this.labelCache ??= labelsIn(this.index.records, this.reader));
  }

  /** The display name from the latest session_info entry, if any. */
  name(): string | undefined {
    return nameIn(this.index.records, this.reader);
  }

  /** Appends an entry as a child of the leaf and makes it the leaf. The line is written when this returns. */
  append(input: NewEntry, options: AppendOptions = {}): SessionEntry {
    this.assertWritable();
    validateNewEntry(input);
    const entry = entryOf(input, this.index.newId(), this.index.leafId);
    const stored = this.appender.write(entry);
    // through sync() (not the appender's own fsync) so that one method is where durability happens
    if (options.sync || entry.type === "compaction" || entry.type === "branch_summary") this.sync();
    this.index.moveLeaf(entry.id);
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
    this.index.require(targetId);
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
    if (targetId !== null) this.index.require(targetId);
    if (targetId === this.leafId) return;
    const marker: CustomEntry = { type: "custom", id: this.index.newId(), parentId: targetId, timestamp: new Date().toISOString(), customType: LEAF_MARKER_TYPE };
    this.appender.write(marker);
    this.index.moveLeaf(targetId);
  }

  /**
   * Writes a bookkeeping entry (see isBookkeeping) as a child of the leaf, leaving the leaf
   * where it is; read it back with latestBookkeeping, whatever branch is active.
   */
  appendBookkeeping(customType: string, data: unknown, options: AppendOptions = {}): void {
    this.assertWritable();
    const entry: CustomEntry = { type: "custom", id: this.index.newId(), parentId: this.leafId, timestamp: new Date().toISOString(), customType, data };
    if (!isBookkeeping(entry)) throw new SessionError("InvalidEntry", `${customType} is not a bookkeeping entry type`);
    this.appender.write(entry);
    if (options.sync) this.sync();
  }

  /** The data of the latest bookkeeping entry of this type in the file, on any branch. */
  latestBookkeeping(customType: string): unknown {
    return latestCustom(this.index.records, customType, this.reader)?.data;
  }

  /**
   * The latest bookkeeping entry of this type and the entries written after it (parsed, not
   * kept): what happened after the state it records was saved.
   */
  latestBookkeepingTail(customType: string): { data: unknown; after: SessionEntry[] } | undefined {
    const found = latestCustom(this.index.records, customType, this.reader);
    if (!found) return undefined;
    const reader = this.reader;
    return { data: found.data, after: this.index.records.slice(found.index + 1).map((r) => reader.parse(r, false)) };
  }

  /** Moves the leaf to `targetId` and writes a branch summary there, which becomes the leaf. */
  branchWithSummary(targetId: string | null, summary: string, details?: unknown, fromHook?: boolean): SessionEntry {
    this.assertWritable();
    if (targetId !== null) this.index.require(targetId);
    this.index.moveLeaf(targetId);
    return this.append({ type: "branch_summary", fromId: targetId ?? "root", summary, details, fromHook });
  }

  /** Writes and opens for writing a new session file of the path root -> `entryId` (its labels too), its header naming this session as `parentSession`. */
  fork(entryId: string, options: ForkOptions = {}): SessionFile {
    this.index.require(entryId);
    const lines: ForkLine[] = [];
    for (const e of this.branchPath(entryId, { keep: false })) forkLine(e, lines);
    const fork = forkFile(lines, this.labels(), { file: this.locator, cwd: this.cwd }, options);
    writeNewFile(fork.file, fork.lines.join("\n") + "\n");
    return SessionFile.open(fork.file);
  }

  /**
   * A fork's lines (header first), giving the event loop back while it reads the path (a long
   * never-compacted branch is the whole file); the store writes and opens them.
   */
  async forkContentsAsync(entryId: string, options: ForkOptions = {}): Promise<{ file: string; lines: string[] }> {
    this.index.require(entryId);
    const lines: ForkLine[] = [];
    // serialized as they are read: a path's lines are a fraction of its parsed entries' heap
    await this.reader.eachParsedAsync(this.index.path(entryId), false, (_r, e) => forkLine(e, lines));
    return forkFile(lines, this.labels(), { file: this.locator, cwd: this.cwd }, options);
  }

  /** Resolves once every line appended so far is durable in the store (at once on the file store). */
  flushed(): Promise<void> {
    return this.sink ? this.sink.whenDurable(this.sink.accepted) : Promise.resolve();
  }

  /** Flushes appended lines to stable storage. */
  sync(): void {
    if (this.handle.fd !== null && !this.readOnly) fsyncSync(this.handle.fd);
  }

  /** close(), after the store's log has every line and the session is given up (a shared store). */
  async closeAsync(): Promise<void> {
    try {
      await this.sink?.close();
    } finally {
      this.close();
    }
  }

  close(): void {
    const fd = this.handle.fd;
    if (fd === null) return;
    try {
      this.unreadContexts.buildAll();
      if (!this.readOnly) fsyncSync(fd);
    } finally {
      closeSync(fd);
      this.handle.fd = null;
      this.lock?.release();
      this.lock = null;
    }
  }

  private assertWritable(): void {
    if (this.handle.fd === null) throw sessionClosed(this.file);
    if (this.readOnly) throw new SessionError("ReadOnly", `session was opened read-only: ${this.file}`);
    const owner = this.sink?.fenced;
    if (owner) throw new SessionError("SessionMoved", `session ${this.sessionId} is now owned by ${owner.nodeId ?? "no node"}: this node may not write it`, { sessionId: this.sessionId, owner });
  }
}
