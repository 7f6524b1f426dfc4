// Reads a file line by line in fixed-size chunks, so scanning a 100 MB session never holds more
// than one chunk (or one very long line) in memory.
import { readSync } from "node:fs";

const NEWLINE = 0x0a;
const CR = 0x0d;

export interface RawLine {
  /** buffer holding the line; valid only during the callback */
  buf: Buffer;
  start: number;
  /** end of the line's content, excluding "\n" and a trailing "\r" */
  end: number;
  /** byte offset of the line in the file */
  offset: number;
  /** byte length in the file including the terminating "\n", if any */
  length: number;
  /** 1-based line number */
  lineNo: number;
  /** false for a last line without its "\n" */
  terminated: boolean;
}

/** Calls `onLine` for every line; returning false stops the scan early. */
export function forEachLine(fd: number, onLine: (line: RawLine) => boolean | void, chunkSize = 4 << 20, startOffset = 0): void {
  let buf = Buffer.allocUnsafe(chunkSize);
  let filled = 0; // bytes of buf holding data
  let bufFileOffset = startOffset; // file offset of buf[0]
  let readPos = startOffset;
  let lineNo = 0;
  let eof = false;
  const line: RawLine = { buf, start: 0, end: 0, offset: 0, length: 0, lineNo: 0, terminated: true };

  for (;;) {
    if (!eof) {
      if (filled === buf.length) {
        // a single line longer than the buffer: grow it
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      const n = readSync(fd, buf, filled, buf.length - filled, readPos);
      if (n === 0) eof = true;
      filled += n;
      readPos += n;
    }
    let cursor = 0;
    for (;;) {
      const nl = buf.indexOf(NEWLINE, cursor);
      if (nl === -1 || nl >= filled) break;
      lineNo++;
      line.buf = buf;
      line.start = cursor;
      line.end = nl > cursor && buf[nl - 1] === CR ? nl - 1 : nl;
      line.offset = bufFileOffset + cursor;
      line.length = nl + 1 - cursor;
      line.lineNo = lineNo;
      line.terminated = true;
      if (onLine(line) === false) return;
      cursor = nl + 1;
    }
    if (eof) {
      if (cursor < filled) {
        lineNo++;
        line.buf = buf;
        line.start = cursor;
        line.end = filled;
        line.offset = bufFileOffset + cursor;
        line.length = filled - cursor;
        line.lineNo = lineNo;
        line.terminated = false;
        onLine(line);
      }
      return;
    }
    // keep the partial line at the front of the buffer
    if (cursor > 0) {
      buf.copyWithin(0, cursor, filled);
      filled -= cursor;
      bufFileOffset += cursor;
    }
  }
}

/** Reads `length` bytes at `offset`. */
export function readRange(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buf : buf.subarray(0, got);
}
