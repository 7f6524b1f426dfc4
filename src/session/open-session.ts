// Getting from a path to a scanned session file SessionFile can be built on: the checks before
// anything is read (whose mistake a bad path is), the write lock, an old format migrated (on
// disk, the original kept, when writable; in memory when read-only), and a new session's first
// line. Kept apart from SessionFile: none of it is needed once a session is open.
import { randomUUID } from "node:crypto";
import { closeSync, constants, copyFileSync, existsSync, fstatSync, openSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { writeFileAtomic } from "./atomic-write.js";
import { SessionError, pathError } from "./session-error.js";
import { assertSessionHeader, scanSessionFile, type EntryRecord, type ScanResult } from "./load.js";
import type { DurableSink } from "./durable-sink.js";
import { FileLock } from "./lock.js";
import { migrateLines, serializeLines } from "./migrate.js";
import { writeNewFile } from "./new-file.js";
import { defaultSessionsDir, sessionFilePath } from "./paths.js";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "./types.js";

export interface OpenOptions {
  /** open without the write lock; appends are refused and old formats are migrated in memory only */
  readOnly?: boolean;
  /** parse every line in full instead of reading light fields (slower; what the light path must equal) */
  fullParse?: boolean;
  /** a shared store's log: every appended line is handed to it (the file is then its local copy) */
  sink?: DurableSink;
  /** how clients name the file (default: its path) */
  locator?: string;
  /** checks the header before anything is taken or changed (no lock, no migration); throws to refuse the file */
  checkHeader?: (header: SessionHeader) => void;
}

export interface CreateOptions {
  cwd: string;
  sessionsDir?: string;
  parentSession?: string;
}

/** A file being opened: its descriptor (replaced when migrating rewrites the file) and lock. */
export interface OpeningFile {
  file: string;
  fd: number;
  lock: FileLock | null;
}

/** Writes a new session file's header (synced before this returns); returns the file's path. */
export function createSessionFile(options: CreateOptions): string {
  const id = randomUUID();
  const timestamp = new Date().toISOString();
  const cwd = resolve(options.cwd);
  const file = sessionFilePath(options.sessionsDir ?? defaultSessionsDir(), cwd, timestamp, id);
  const header: SessionHeader = { type: "session", version: CURRENT_SESSION_VERSION, id, timestamp, cwd };
  if (options.parentSession) header.parentSession = options.parentSession;
  writeNewFile(file, JSON.stringify(header) + "\n");
  return file;
}

/** The checks before anything is read: the path, a session header, the write lock. Then the file, opened. */
export function beginOpen(path: string, options: OpenOptions): OpeningFile {
  if (path.includes("\0")) throw new SessionError("InvalidPath", `not a valid path (it holds a NUL character): ${JSON.stringify(path.slice(0, 200))}`, { file: path.slice(0, 200) });
  const file = resolve(path);
  let stat;
  try {
    stat = statSync(file);
  } catch (err) {
    throw pathError(err, file) ?? err;
  }
  if (!stat.isFile()) throw new SessionError("NotASession", `not a session file (${stat.isDirectory() ? "a directory" : "not a regular file"}): ${file}`, { file });
  // not a session (or one the caller refuses): refused before a lock file is created beside it.
  // Opened without blocking and checked again through the descriptor: a file swapped for a FIFO
  // since the stat (the model's bash can, in a folder it writes) must not stall the event loop
  let header: SessionHeader;
  try {
    const probe = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
    try {
      if (!fstatSync(probe).isFile()) throw new SessionError("NotASession", `not a session file (not a regular file): ${file}`, { file });
      header = assertSessionHeader(probe, file);
    } finally {
      closeSync(probe);
    }
  } catch (err) {
    throw err instanceof SessionError ? err : (pathError(err, file) ?? err);
  }
  options.checkHeader?.(header);
  let lock: FileLock | null = null;
  try {
    if (!options.readOnly) lock = FileLock.acquire(file);
  } catch (err) {
    // a folder the lock cannot be made in is the caller's path, not our failure
    throw err instanceof SessionError ? err : (pathError(err, file) ?? err);
  }
  try {
    const fd = openSync(file, (options.readOnly ? constants.O_RDONLY : constants.O_RDWR | constants.O_APPEND | constants.O_CREAT) | constants.O_NONBLOCK | constants.O_NOCTTY, 0o666);
    if (!fstatSync(fd).isFile()) {
      closeSync(fd);
      throw new SessionError("NotASession", `not a session file (not a regular file): ${file}`, { file });
    }
    return { file, fd, lock };
  } catch (err) {
    lock?.release();
    throw err instanceof SessionError ? err : (pathError(err, file) ?? err);
  }
}

/** Runs `fn`; if it throws, the file is closed and the lock released, and the error says whose mistake it was. */
export function settleOpen<T>(opened: OpeningFile, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (opened.fd >= 0) closeSync(opened.fd);
    opened.lock?.release();
    throw err instanceof SessionError ? err : (pathError(err, opened.file) ?? err);
  }
}

/**
 * From the first scan to the one a session is built on: an old format is migrated (on disk when
 * writable, `opened.fd` then reopened on the new file; in memory when read-only).
 */
export function migrateOnOpen(opened: OpeningFile, first: ScanResult, options: OpenOptions): { scan: ScanResult; backupFile?: string } {
  const { file } = opened;
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
  return { scan, backupFile };
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
      bodyAt: -1,
      lineNo,
      offset: 0,
      length: 0,
      entry: e,
    });
  }
  return { ...scan, header: migrated[0] && "json" in migrated[0] ? (migrated[0].json as SessionHeader) : scan.header, records };
}
