// Listing sessions. Reads only what a listing shows: the header, the light fields of each line,
// the first user message and session_info names. No line is fully parsed otherwise.
import { closeSync, existsSync, openSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { readLightFields } from "./light-fields.js";
import { parseObject, sessionNameIn, userTextIn } from "./listing-fields.js";
import { forEachLine, SLICE_MS, yieldToLoop } from "./line-reader.js";
import { isHeader } from "./load.js";
import { encodeCwd } from "./paths.js";

export interface SessionSummary {
  id: string;
  file: string;
  cwd: string;
  name?: string;
  parentSession?: string;
  /** header timestamp (ISO) */
  created: string;
  /** timestamp of the latest entry (ISO), or the header's */
  modified: string;
  messageCount: number;
  /** text of the first user message, or "" */
  firstMessage: string;
}

const parseLine = parseObject;

/** Summary of one file, or null if it is not a session file. */
export function summarizeSessionFile(file: string): SessionSummary | null {
  let fd: number;
  try {
    if (!statSync(file).isFile()) return null; // opening a FIFO would block
    fd = openSync(file, "r");
  } catch {
    return null;
  }
  let summary: SessionSummary | null = null;
  try {
    forEachLine(fd, (line) => {
      const { buf, start, end } = line;
      if (line.lineNo === 1) {
        if (buf[start] !== 0x7b) return false;
        const header = parseLine(buf.toString("utf8", start, end));
        if (!isHeader(header)) return false;
        summary = {
          id: header.id,
          file,
          cwd: typeof header.cwd === "string" ? header.cwd : "",
          parentSession: typeof header.parentSession === "string" ? header.parentSession : undefined,
          created: header.timestamp,
          modified: header.timestamp,
          messageCount: 0,
          firstMessage: "",
        };
        return;
      }
      const s = summary as SessionSummary;
      const light = readLightFields(buf, start, end);
      let type = light?.type;
      let timestamp = light?.timestamp;
      let role = light?.role;
      let full: Record<string, unknown> | null = null;
      if (!light) {
        full = parseLine(buf.toString("utf8", start, end));
        if (!full) return;
        type = full.type as string;
        timestamp = full.timestamp as string;
        role = (full.message as { role?: string } | undefined)?.role;
      }
      if (typeof timestamp === "string" && timestamp > s.modified) s.modified = timestamp;
      if (type === "message") {
        s.messageCount++;
        if (!s.firstMessage && role === "user") {
          full ??= parseLine(buf.toString("utf8", start, end));
          s.firstMessage = userTextIn(full) ?? "";
        }
      } else if (type === "session_info") {
        full ??= parseLine(buf.toString("utf8", start, end));
        s.name = sessionNameIn(full) ?? s.name;
      }
    });
  } finally {
    closeSync(fd);
  }
  return summary;
}

/**
 * Sessions under `sessionsDir` (one directory per cwd), newest first. With `cwd`, only that
 * directory's sessions whose header names that cwd (the directory encoding is lossy).
 */
export function listSessions(sessionsDir: string, options: { cwd?: string } = {}): SessionSummary[] {
  const out: SessionSummary[] = [];
  for (const file of sessionFiles(sessionsDir, options.cwd)) {
    const summary = summarizeSessionFile(file);
    if (summary && (!options.cwd || summary.cwd === resolve(options.cwd))) out.push(summary);
  }
  return newestFirst(out);
}

/** listSessions, giving the event loop back every few milliseconds (10,000 files take a while). */
export async function listSessionsAsync(sessionsDir: string, options: { cwd?: string } = {}): Promise<SessionSummary[]> {
  const out: SessionSummary[] = [];
  const cwd = options.cwd ? resolve(options.cwd) : undefined;
  let t0 = performance.now();
  for (const file of sessionFiles(sessionsDir, options.cwd)) {
    const summary = summarizeSessionFile(file);
    if (summary && (!cwd || summary.cwd === cwd)) out.push(summary);
    if (performance.now() - t0 >= SLICE_MS) {
      await yieldToLoop();
      t0 = performance.now();
    }
  }
  return newestFirst(out);
}

function newestFirst(sessions: SessionSummary[]): SessionSummary[] {
  return sessions.sort((a, b) => (a.modified < b.modified ? 1 : a.modified > b.modified ? -1 : 0));
}

/** The .jsonl files of every cwd folder (or of `cwd`'s), found as the listing goes. */
function* sessionFiles(sessionsDir: string, cwd?: string): Generator<string> {
  if (!existsSync(sessionsDir)) return;
  const dirs = cwd
    ? [join(sessionsDir, encodeCwd(resolve(cwd)))]
    : readdirSync(sessionsDir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => join(sessionsDir, d.name));
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue; // no folder for this cwd (or one that went away while listing)
    }
    // (a name that is not a regular file, or was deleted since the readdir, is summarized as null)
    for (const name of names) if (name.endsWith(".jsonl")) yield join(dir, name);
  }
}

/**
 * The file of session `id` under `sessionsDir`. File names end in `_<id>.jsonl` (the layout
 * this store writes), so a match by name is tried first and only confirmed by its header; a
 * file named otherwise is found by reading every header (the slow way, as a fallback).
 */
export function findSessionFile(sessionsDir: string, id: string): string | undefined {
  return byFileName(sessionsDir, id) ?? listSessions(sessionsDir).find((s) => s.id === id)?.file;
}

/** findSessionFile, its slow way (every header) read in slices that give the event loop back. */
export async function findSessionFileAsync(sessionsDir: string, id: string): Promise<string | undefined> {
  return byFileName(sessionsDir, id) ?? (await listSessionsAsync(sessionsDir)).find((s) => s.id === id)?.file;
}

function byFileName(sessionsDir: string, id: string): string | undefined {
  const suffix = `_${id}.jsonl`;
  for (const file of sessionFiles(sessionsDir)) if (file.endsWith(suffix) && headerIdOf(file) === id) return file;
  return undefined;
}

/** The id in a file's header, reading only its first line. */
function headerIdOf(file: string): string | undefined {
  let fd: number;
  try {
    if (!statSync(file).isFile()) return undefined;
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  let id: string | undefined;
  try {
    forEachLine(
      fd,
      (line) => {
        const header = parseLine(line.buf.toString("utf8", line.start, line.end));
        if (isHeader(header)) id = header.id;
        return false;
      },
      64 * 1024,
    );
  } finally {
    closeSync(fd);
  }
  return id;
}
