// Turning the index's byte spans back into entries: one entry on demand, or many in runs of
// neighbouring lines read with one read each (a pread per entry was most of the first tree's
// time), and the tree's previews straight from a line's bytes where that is enough. Kept apart
// from SessionFile so the read path (the hot one: context, tree, fork) is one small file.
import { SessionError, type SessionWarning } from "./session-error.js";
import { inSlices, readInto, readRange } from "./line-reader.js";
import type { EntryRecord } from "./load.js";
import { previewFromPrefix } from "./preview-from-front.js";
import { previewOf } from "./tree.js";
import type { SessionEntry } from "./types.js";

/** The file a session reads from and appends to, shared by its parts; `fd` is null once closed. */
export interface SessionFd {
  readonly file: string;
  fd: number | null;
}

export function sessionClosed(file: string): SessionError {
  return new SessionError("SessionClosed", `session is closed: ${file}`);
}

const UNREADABLE = "unreadable";
/** A run read at once holds neighbouring lines up to this many bytes, */
const RUN_BYTES = 4 << 20;
/** with gaps (lines not asked for, e.g. bookkeeping) of at most this many. */
const RUN_GAP_BYTES = 64 << 10;
/** A run parsed while the event loop waits: about 10 ms of JSON.parse. */
const ASYNC_RUN_BYTES = 512 << 10;
/** What is read of a line longer than a run for its preview: its front decides it unless it is unusual. */
const HEAD_BYTES = 64 << 10;
/** Previews made between two chances for an async caller to give the event loop back. */
const PREVIEW_BATCH = 256;

export class EntryReader {
  constructor(
    private readonly handle: SessionFd,
    /** the session's warnings: a damaged line found on the way is reported there */
    private readonly warnings: SessionWarning[],
  ) {}

  assertOpen(): void {
    if (this.handle.fd === null) throw sessionClosed(this.handle.file);
  }

  /** The entry of `rec`, read and parsed on first use (kept on the record when `cache`). */
  parse(rec: EntryRecord, cache = true): SessionEntry {
    if (rec.entry) return rec.entry;
    const fd = this.handle.fd;
    if (fd === null) throw sessionClosed(this.handle.file);
    return this.parseText(rec, readRange(fd, rec.offset, rec.length).toString("utf8"), cache);
  }

  /** An entry from its line's text (kept on the record when `cache`). */
  parseText(rec: EntryRecord, text: string, cache: boolean): SessionEntry {
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
    return this.adopt(rec, entry, cache);
  }

  /** A parsed entry as the record's (kept on it when `cache`). */
  private adopt(rec: EntryRecord, entry: SessionEntry, cache: boolean): SessionEntry {
    if (rec.entry) return rec.entry;
    // the tree's parent may differ from the stored one (dangling parents are re-attached)
    if (entry.parentId !== rec.parentId) entry = { ...entry, parentId: rec.parentId };
    if (cache) rec.entry = entry;
    return entry;
  }

  /** A message's role, parsed (and kept) when the light fields did not have it. */
  roleOf(rec: EntryRecord): string | undefined {
    if (rec.role === undefined && rec.type === "message") rec.role = (this.parse(rec) as { message?: { role?: string } }).message?.role;
    return rec.role;
  }

  /** An entry's preview: parsed without keeping the entry (a huge file's tree must not hold every entry), kept itself. */
  preview(r: EntryRecord): string {
    return (r.preview ??= previewOf(this.parse(r, false)));
  }

  /** The entries of `records` (in file order), read in runs (see lineRuns), each run parsed with one JSON.parse where it can be. */
  *parsedRuns(records: readonly EntryRecord[], keep: boolean, runBytes = RUN_BYTES): Generator<[EntryRecord, SessionEntry]> {
    const run: Line[] = [];
    const flush = function* (this: EntryReader): Generator<[EntryRecord, SessionEntry]> {
      const values = parseRun(run);
      for (let k = 0; k < run.length; k++) {
        const l = run[k];
        yield [l.rec, values ? this.adopt(l.rec, values[k] as SessionEntry, keep) : this.parseText(l.rec, l.buf!.toString("utf8", l.start, l.end), keep)];
      }
      run.length = 0;
    };
    for (const l of this.lineRuns(records, runBytes)) {
      if (run.length > 0 && l.buf !== run[0].buf) yield* flush.call(this);
      if (l.buf) run.push(l);
      else yield [l.rec, this.parse(l.rec, keep)];
    }
    if (run.length > 0) yield* flush.call(this);
  }

  /**
   * parsedRuns in slices of SLICE_MS, the event loop given back in between; its runs are smaller,
   * since one run is one JSON.parse that cannot be cut (4 MiB held the loop for ~80 ms).
   */
  eachParsedAsync(records: readonly EntryRecord[], keep: boolean, visit: (r: EntryRecord, e: SessionEntry) => void): Promise<void> {
    return inSlices(this.parsedRuns(records, keep, ASYNC_RUN_BYTES), ([r, e]) => visit(r, e), () => this.assertOpen());
  }

  /**
   * Gives each of `records` its tree preview: from the front of its line where that decides the
   * preview, else parsed (not kept). Yields after every run and every
   * PREVIEW_BATCH lines, so that an async caller can give the event loop back in between.
   */
  *previewMissing(records: readonly EntryRecord[]): Generator<void> {
    let done = 0;
    // nothing made here keeps the bytes: one buffer serves every run, and a line longer than a
    // run is read only as far as its preview usually needs
    for (const run of this.byteRuns(records, { reuse: true, headOfLong: HEAD_BYTES })) {
      const buf = run.buf;
      for (let k = run.from; k < run.to; k++) {
        const r = records[k];
        if (buf) {
          const start = r.offset - run.base;
          if (run.head) {
            r.preview = previewFromPrefix(buf, start, buf.length, r) ?? this.previewOfLine(r, readRange(this.fd(), r.offset, r.length), 0);
          } else r.preview = this.previewOfLine(r, buf, start);
        } else r.preview = previewOf(this.parse(r, false));
        if (++done % PREVIEW_BATCH === 0) yield;
      }
      yield;
    }
  }

  /** The preview of `r` from its whole line at `start` in `buf`: from its front, else parsed (not kept). */
  private previewOfLine(r: EntryRecord, buf: Buffer, start: number): string {
    const end = lineContentEnd(buf, start, start + r.length);
    return previewFromPrefix(buf, start, end, r) ?? previewOf(this.parseText(r, buf.toString("utf8", start, end), false));
  }

  /** The open file's descriptor (an async reader may find the session closed between slices). */
  private fd(): number {
    const fd = this.handle.fd;
    if (fd === null) throw sessionClosed(this.handle.file);
    return fd;
  }

  /** The lines of `records` (in file order), one by one over byteRuns. */
  private *lineRuns(records: readonly EntryRecord[], runBytes: number): Generator<Line> {
    for (const run of this.byteRuns(records, { runBytes })) {
      for (let k = run.from; k < run.to; k++) {
        const r = records[k];
        const at = r.offset - run.base;
        yield run.buf ? { rec: r, buf: run.buf, start: at, end: at + r.length } : { rec: r, start: 0, end: 0 };
      }
    }
  }

  /**
   * `records` (in file order) in runs of neighbouring lines, each read with one read (a pread per
   * entry was most of the first tree's time). An entry already parsed, or that lives in memory
   * only, is a run of its own without bytes. The run object is reused: read it before the next.
   * `reuse`: one buffer for every run (the caller keeps nothing of it); `headOfLong`: a line longer
   * than a run is read only that far (`head` set).
   */
  private *byteRuns(records: readonly EntryRecord[], options: { reuse?: boolean; headOfLong?: number; runBytes?: number } = {}): Generator<ByteRun> {
    const runBytes = options.runBytes ?? RUN_BYTES;
    const run: ByteRun = { buf: undefined, base: 0, from: 0, to: 0, head: false };
    let scratch: Buffer | undefined;
    let i = 0;
    while (i < records.length) {
      const first = records[i];
      run.from = i;
      if (first.entry || first.length === 0) {
        run.buf = undefined;
        run.to = ++i;
        yield run;
        continue;
      }
      let j = i + 1;
      let end = first.offset + first.length;
      for (; j < records.length; j++) {
        const r = records[j];
        if (r.entry || r.length === 0 || r.offset < end || r.offset - end > RUN_GAP_BYTES || r.offset + r.length - first.offset > runBytes) break;
        end = r.offset + r.length;
      }
      run.head = options.headOfLong !== undefined && end - first.offset > runBytes;
      const length = run.head ? Math.min(options.headOfLong!, end - first.offset) : end - first.offset;
      if (options.reuse) {
        if (!scratch || scratch.length < length) scratch = Buffer.allocUnsafe(Math.max(length, Math.min(RUN_BYTES, scratch ? scratch.length * 2 : length)));
        run.buf = readInto(this.fd(), scratch, first.offset, length);
      } else run.buf = readRange(this.fd(), first.offset, length);
      run.base = first.offset;
      run.to = i = j;
      yield run;
    }
  }
}

/** Records `from`..`to` (exclusive) of a list, their lines in `buf` at their offset minus `base`; no buffer: one record that has its entry or no bytes. */
interface ByteRun {
  buf: Buffer | undefined;
  base: number;
  from: number;
  to: number;
  /** one line longer than a run, of which `buf` holds only the start */
  head: boolean;
}

/** A record's line in a run's buffer (`start`..`end`, its newline included); no buffer: the record has its entry or no bytes. */
interface Line {
  rec: EntryRecord;
  buf?: Buffer;
  start: number;
  end: number;
}

/**
 * A run of lines (one buffer, file order) parsed with one JSON.parse, as the elements of an array:
 * the run's bytes are decoded once instead of line by line, and the garbage of a string per line
 * (most of the scavenges of opening a long session never compacted) is gone. Each line's newline
 * becomes a comma and the bytes between the lines (lines not asked for) spaces, in the run's own
 * buffer: the lines' contents are untouched. undefined when that does not give exactly one object
 * per line, each with its record's id (a damaged line): then each line is parsed by itself.
 */
function parseRun(run: readonly Line[]): unknown[] | undefined {
  if (run.length < 2) return undefined;
  const buf = run[0].buf!;
  const from = run[0].start;
  const last = run[run.length - 1];
  // the bracket before the first line and after the last one: the run's buffer has no room for them
  let prev = from;
  for (const l of run) {
    if (l.end <= l.start || buf[l.end - 1] !== 0x0a) return undefined;
    buf.fill(0x20, prev, l.start);
    buf[l.end - 1] = 0x2c;
    prev = l.end;
  }
  let values: unknown;
  try {
    values = JSON.parse(`[${buf.toString("utf8", from, last.end - 1)}]`);
  } catch {
    values = undefined;
  }
  for (const l of run) buf[l.end - 1] = 0x0a;
  if (!Array.isArray(values) || values.length !== run.length) return undefined;
  for (let k = 0; k < run.length; k++) {
    // each element is its line's entry: the id the scan read from that line
    const v = values[k] as { id?: unknown } | null;
    if (typeof v !== "object" || v === null || Array.isArray(v) || v.id !== run[k].rec.id) return undefined;
  }
  return values;
}

/** The end of a line's content in `buf`: before its "\n" (and a "\r" before that). */
function lineContentEnd(buf: Buffer, start: number, end: number): number {
  let e = end;
  if (e > start && buf[e - 1] === 0x0a) e--;
  if (e > start && buf[e - 1] === 0x0d) e--;
  return e;
}
