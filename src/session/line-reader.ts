// Reads a file line by line in fixed-size chunks, so scanning a 100 MB session never holds more
// than one chunk (or one very long line) in memory.
import { fstatSync, readSync } from "node:fs";

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
  for (const _ of lineChunks(fd, onLine, chunkSize, startOffset));
}

/** A turn of the event loop for the rest of the daemon (a setImmediate, not a timer). */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** How long a scan may hold the event loop before it lets other work run. */
export const SLICE_MS = 20;

/**
 * forEachLine that gives the event loop back every SLICE_MS: opening a 100 MB session must not
 * stall a daemon's other sessions for the whole scan.
 */
export async function forEachLineAsync(fd: number, onLine: (line: RawLine) => boolean | void, chunkSize = 1 << 20, startOffset = 0): Promise<void> {
  let t0 = performance.now();
  for (const _ of lineChunks(fd, onLine, chunkSize, startOffset)) {
    if (performance.now() - t0 >= SLICE_MS) {
      await yieldToLoop();
      t0 = performance.now();
    }
  }
}

/**
 * Runs `visit` over `items`, giving the event loop back every `sliceMs` (and calling `check`
 * after each pause: the work may have been cancelled meanwhile).
 */
export async function inSlices<T>(items: Iterable<T>, visit: (item: T) => void, check: () => void = () => undefined, sliceMs = SLICE_MS): Promise<void> {
  let t0 = performance.now();
  for (const item of items) {
    visit(item);
    if (performance.now() - t0 >= sliceMs) {
      await yieldToLoop();
      check();
      t0 = performance.now();
    }
  }
}

/** The scan, one buffer fill at a time: each step reads a chunk and hands its whole lines to `onLine`. */
function* lineChunks(fd: number, onLine: (line: RawLine) => boolean | void, chunkSize: number, startOffset: number): Generator<void, void> {
  // no bigger than the file: listing 10,000 small sessions must not allocate 4 MiB for each
  let buf = Buffer.allocUnsafe(Math.max(1, Math.min(chunkSize, fstatSync(fd).size - startOffset + 1)));
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
    // only the bytes read: past them lies the rest of a fresh buffer (4 MiB to scan for nothing)
    const data = filled === buf.length ? buf : buf.subarray(0, filled);
    for (;;) {
      const nl = data.indexOf(NEWLINE, cursor);
      if (nl === -1) break;
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
    yield;
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
  return readInto(fd, Buffer.allocUnsafe(length), offset, length);
}

/** Reads `length` bytes at `offset` into the start of `buf`: the part of it read. */
export function readInto(fd: number, buf: Buffer, offset: number, length: number): Buffer {
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return got === buf.length ? buf : buf.subarray(0, got);
}
