// Reading a text file line by line in fixed-size chunks, so read and grep never load a huge file
// whole and can stop as soon as they have what they need.
//
// Lines are gathered as bytes, and a line longer than `maxLineBytes` is cut as it is read: the
// bytes past the bound are counted, never kept. So one 100 MB line costs one pass over the file
// and at most `maxLineBytes` of memory (joining strings chunk by chunk and searching the growing
// string for "\n" again after every chunk took 51 s and 1.1 GB on such a file).
import { open, type FileHandle } from "node:fs/promises";
import { abortedError } from "./fs-error-messages.js";

const CHUNK = 64 * 1024;
/** Bytes looked at for a NUL to call a file binary (git uses the same heuristic). */
const SNIFF_BYTES = 8 * 1024;
/** Default bound on the bytes kept of one line. */
const MAX_LINE_BYTES = 1024 * 1024;

/**
 * Called per line (1-based number, without "\n" and without a trailing "\r"). `cutFrom` is set
 * when the line was longer than the bound: its full length in bytes (the line holds its start).
 * Return "stop" to end the read, "count" to only count the remaining lines, anything else to go on.
 */
export type LineVisitor = (line: string, lineNumber: number, cutFrom?: number) => "stop" | "count" | void;

export interface LineScan {
  /** the first SNIFF_BYTES held a NUL: no line was visited */
  binary: boolean;
  /** lines seen (all of the file's lines unless stopped); a final line without "\n" counts */
  lines: number;
  stopped: boolean;
}

export interface ScanOptions {
  signal?: AbortSignal;
  /** most bytes kept of one line (default MAX_LINE_BYTES) */
  maxLineBytes?: number;
}

export function looksBinary(buf: Uint8Array): boolean {
  return buf.subarray(0, SNIFF_BYTES).includes(0);
}

/** The longest start of `buf` that does not end inside a UTF-8 character. */
function wholeCharacters(buf: Buffer): Buffer {
  let end = buf.length;
  // step back over continuation bytes (10xxxxxx) and the lead byte they belong to, if incomplete
  let k = end - 1;
  while (k >= 0 && end - k <= 4 && (buf[k] & 0xc0) === 0x80) k--;
  if (k >= 0 && end - k <= 4) {
    const lead = buf[k];
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (end - k < need) end = k;
  }
  return buf.subarray(0, end);
}

/** The bytes of the line being gathered: its start (up to the bound) and its full length. */
class LineBuffer {
  private parts: Buffer[] = [];
  private kept = 0;
  total = 0;

  constructor(private readonly bound: number) {}

  add(bytes: Buffer): void {
    this.total += bytes.length;
    const room = this.bound - this.kept;
    if (room <= 0 || bytes.length === 0) return;
    // copied: the chunk buffer is reused for the next read
    const piece = Buffer.from(bytes.subarray(0, room));
    this.parts.push(piece);
    this.kept += piece.length;
  }

  /** The line as text (a trailing "\r" dropped) and its full length when it was cut; resets. */
  take(): { text: string; cutFrom?: number } {
    let bytes = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.kept);
    const cut = this.total > this.kept;
    if (cut) bytes = wholeCharacters(bytes);
    else if (bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, -1);
    const out = { text: bytes.toString("utf8"), cutFrom: cut ? this.total : undefined };
    this.parts = [];
    this.kept = 0;
    this.total = 0;
    return out;
  }
}

/** Scans the file at `source` (a path, or a handle the caller opened and closes). */
export async function scanLines(source: string | FileHandle, visit: LineVisitor, options: ScanOptions | AbortSignal = {}): Promise<LineScan> {
  const opts: ScanOptions = options instanceof AbortSignal ? { signal: options } : options;
  if (typeof source !== "string") return scan(source, visit, opts);
  const handle = await open(source, "r");
  try {
    return await scan(handle, visit, opts);
  } finally {
    await handle.close();
  }
}

async function scan(handle: FileHandle, visit: LineVisitor, { signal, maxLineBytes = MAX_LINE_BYTES }: ScanOptions): Promise<LineScan> {
  const buf = Buffer.allocUnsafe(CHUNK);
  const bound = Math.max(1, maxLineBytes);
  const line = new LineBuffer(bound);
  let lineNo = 0;
  let counting = false;
  let first = true;
  // whether the last byte seen ended a line (a final line without "\n" still counts)
  let lastByteWasNewline = true;
  let position = 0;
  for (;;) {
    if (signal?.aborted) throw abortedError();
    const { bytesRead } = await handle.read(buf, 0, CHUNK, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const chunk = buf.subarray(0, bytesRead);
    if (first) {
      first = false;
      if (looksBinary(chunk)) return { binary: true, lines: 0, stopped: false };
    }
    lastByteWasNewline = chunk[bytesRead - 1] === 10;
    if (counting) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lineNo++;
      continue;
    }
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      lineNo++;
      let verdict: ReturnType<LineVisitor>;
      if (line.total === 0 && piece.length <= bound) {
        // the common case, a whole short line inside this chunk: decoded in place, no copy
        const end = piece.length > 0 && piece[piece.length - 1] === 13 ? piece.length - 1 : piece.length;
        verdict = visit(piece.toString("utf8", 0, end), lineNo);
      } else {
        line.add(piece);
        const { text, cutFrom } = line.take();
        verdict = visit(text, lineNo, cutFrom);
      }
      if (verdict === "stop") return { binary: false, lines: lineNo, stopped: true };
      if (verdict === "count") {
        counting = true;
        for (let i = chunk.indexOf(10, start); i !== -1; i = chunk.indexOf(10, i + 1)) lineNo++;
        break;
      }
    }
    if (!counting) line.add(chunk.subarray(start));
  }
  if (counting) {
    if (!lastByteWasNewline) lineNo++;
    return { binary: false, lines: lineNo, stopped: false };
  }
  if (line.total > 0) {
    lineNo++;
    const { text, cutFrom } = line.take();
    if (visit(text, lineNo, cutFrom) === "stop") return { binary: false, lines: lineNo, stopped: true };
  }
  return { binary: false, lines: lineNo, stopped: false };
}
