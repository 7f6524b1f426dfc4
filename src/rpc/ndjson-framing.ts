// Reading one JSON-RPC message per line from a byte stream (the message reader of the stdio
// transport). Pure: chunks in, lines out; the stream listeners live in stdio-transport.ts.
//
// - Lines end at LF (0x0A) only; one trailing CR is stripped. U+2028/U+2029 and lone CRs are
//   ordinary characters (node's readline splits on them, so it is not used).
// - Work is done on Buffers; a line is decoded as UTF-8 only once it is complete, so chunks that
//   split a line or a multi-byte character are fine. Invalid UTF-8 decodes to U+FFFD.
// - Empty lines (after the CR strip) are ignored.
// - A line longer than maxLineBytes (not counting LF and the stripped CR) is dropped without
//   being held in memory: once it is known to be too long its bytes are only counted until the
//   next LF, and onOversize(bytes, head) fires once, at its end, with its full length and its first
//   OVERSIZE_HEAD_BYTES bytes (enough to read a request's id from, see request-id-head.ts). The
//   next line is read normally.
// - end() delivers an unterminated last line like a terminated one.

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
/** how much of the start of an oversize line is kept */
export const OVERSIZE_HEAD_BYTES = 4096;

const LF = 0x0a;
const CR = 0x0d;

export interface LineSink {
  line(text: string): void;
  /** `head`: the line's first bytes (at most OVERSIZE_HEAD_BYTES) */
  oversize(bytes: number, head: Buffer): void;
}

export class LineFramer {
  private parts: Buffer[] = []; // pieces of the current line (no LF in them)
  private partsBytes = 0;
  private discarding = false; // the current line is already known to be oversize
  private discardBytes = 0;
  private head: Buffer = Buffer.alloc(0); // the start of the line being discarded
  private lastByteCR = false; // the last byte seen in the current line was CR (for discard counting)

  constructor(
    private readonly sink: LineSink,
    readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new RangeError(`stdioConnection: maxLineBytes must be a positive integer, got ${maxLineBytes}`);
    }
  }

  /**
   * Feeds one chunk. `more()` is asked before each line: when it turns false (the reader was
   * stopped by what a line did), the rest of the chunk is not read.
   */
  push(chunk: Buffer | string, more: () => boolean = () => true): void {
    const buf = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    let start = 0;
    while (more() && start < buf.length) {
      const nl = buf.indexOf(LF, start);
      const end = nl === -1 ? buf.length : nl;
      if (end > start) this.append(buf.subarray(start, end));
      if (nl === -1) break;
      this.endLine();
      start = nl + 1;
    }
  }

  /** Input ended: an unterminated last line counts as a line. */
  end(): void {
    if (this.partsBytes > 0 || this.discarding) this.endLine();
  }

  /** Forgets the partial line (the input is abandoned). */
  reset(): void {
    this.parts = [];
    this.partsBytes = 0;
    this.discarding = false;
    this.discardBytes = 0;
    this.head = Buffer.alloc(0);
    this.lastByteCR = false;
  }

  private append(piece: Buffer): void {
    this.lastByteCR = piece[piece.length - 1] === CR;
    if (this.discarding) {
      this.discardBytes += piece.length;
      return;
    }
    // Allow one extra byte: it may be the CR that is stripped at the LF.
    if (this.partsBytes + piece.length > this.maxLineBytes + 1) {
      this.head = headOf([...this.parts, piece]);
      this.discarding = true;
      this.discardBytes = this.partsBytes + piece.length;
      this.parts = [];
      this.partsBytes = 0;
      return;
    }
    this.parts.push(piece);
    this.partsBytes += piece.length;
  }

  private endLine(): void {
    if (this.discarding) {
      const bytes = this.discardBytes - (this.lastByteCR ? 1 : 0);
      const head = this.head;
      this.reset();
      this.sink.oversize(bytes, head);
      return;
    }
    const line = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.partsBytes);
    this.reset();
    let len = line.length;
    if (len > 0 && line[len - 1] === CR) len--;
    if (len === 0) return;
    if (len > this.maxLineBytes) {
      this.sink.oversize(len, Buffer.from(line.subarray(0, OVERSIZE_HEAD_BYTES)));
      return;
    }
    this.sink.line(line.toString("utf8", 0, len));
  }
}

/** A copy of the first OVERSIZE_HEAD_BYTES of the pieces (never more: the pieces may be huge). */
function headOf(pieces: readonly Buffer[]): Buffer {
  const out: Buffer[] = [];
  let n = 0;
  for (const p of pieces) {
    if (n >= OVERSIZE_HEAD_BYTES) break;
    const take = p.subarray(0, OVERSIZE_HEAD_BYTES - n);
    out.push(take);
    n += take.length;
  }
  return Buffer.concat(out, n); // a copy: the pieces are not kept alive
}
