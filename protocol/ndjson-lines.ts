// The one line reader of pith's newline-delimited JSON: bytes in, whole lines out. Used by every
// party that reads JSON-RPC from a byte stream: the daemon's stdio transport and ACP stdin
// (src/), the TypeScript client's stdio transport (clients/ts), the tests' own readers.
//
// Why it lives in protocol/: the one place both src/ and clients/ts may import. Like
// connection-core.ts it is not part of the wire contract and imports nothing: bytes are
// Uint8Arrays (a Node Buffer is one) and text is decoded with the global TextDecoder, so no Node
// module is needed. protocol/index.ts does not re-export it.
//
// - Lines end at LF (0x0A) only; one trailing CR is stripped. U+2028/U+2029 and lone CRs are
//   ordinary characters (node's readline splits on them, so it is not used).
// - A line is decoded as UTF-8 only once it is complete, so chunks that split a line or a
//   multi-byte character are fine. Invalid UTF-8 decodes to U+FFFD; a BOM is kept (it is not JSON).
// - Empty lines (after the CR strip) are skipped; any other line is delivered, even blank ones
//   (a reader of JSON answers those as what they are: not JSON).
// - A line longer than maxLineBytes (not counting LF and the stripped CR) is dropped without
//   being held in memory: once it is known to be too long its bytes are only counted until the
//   next LF, and oversize(bytes, head) fires once, at its end, with its full length and its first
//   OVERSIZE_HEAD_BYTES bytes decoded (enough to read a request's id from). The next line is read
//   normally.
// - end() delivers an unterminated last line like a terminated one.

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
/** how much of the start of an oversize line is kept */
export const OVERSIZE_HEAD_BYTES = 4096;
/** for a reader that takes lines of any length (a client trusts its own daemon's answers) */
export const NO_LINE_LIMIT = Number.MAX_SAFE_INTEGER;

const LF = 0x0a;
const CR = 0x0d;

// ignoreBOM: keep a BOM as a character, like Node's Buffer#toString (the line is then not JSON)
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const encoder = new TextEncoder();

export interface LineSink {
  line(text: string): void;
  /** `head`: the line's first bytes (at most OVERSIZE_HEAD_BYTES), decoded */
  oversize(bytes: number, head: string): void;
}

export class LineReader {
  private parts: Uint8Array[] = []; // pieces of the current line (no LF in them)
  private partsBytes = 0;
  private discarding = false; // the current line is already known to be oversize
  private discardBytes = 0;
  private head: Uint8Array = new Uint8Array(0); // the start of the line being discarded
  private lastByteCR = false; // the last byte seen in the current line was CR (for discard counting)

  constructor(
    private readonly sink: LineSink,
    readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new RangeError(`LineReader: maxLineBytes must be a positive integer, got ${maxLineBytes}`);
    }
  }

  /**
   * Feeds one chunk. `more()` is asked before each line: when it turns false (the reader was
   * stopped by what a line did), the rest of the chunk is not read.
   */
  push(chunk: Uint8Array | string, more: () => boolean = () => true): void {
    const buf = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
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
    this.head = new Uint8Array(0);
    this.lastByteCR = false;
  }

  private append(piece: Uint8Array): void {
    this.lastByteCR = piece[piece.length - 1] === CR;
    if (this.discarding) {
      this.discardBytes += piece.length;
      return;
    }
    // Allow one extra byte: it may be the CR that is stripped at the LF.
    if (this.partsBytes + piece.length > this.maxLineBytes + 1) {
      this.head = concat([...this.parts, piece], OVERSIZE_HEAD_BYTES);
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
      this.sink.oversize(bytes, decoder.decode(head));
      return;
    }
    const line = this.parts.length === 1 ? this.parts[0] : concat(this.parts, this.partsBytes);
    this.reset();
    let len = line.length;
    if (len > 0 && line[len - 1] === CR) len--;
    if (len === 0) return;
    if (len > this.maxLineBytes) {
      this.sink.oversize(len, decoder.decode(line.subarray(0, OVERSIZE_HEAD_BYTES)));
      return;
    }
    this.sink.line(decoder.decode(line.subarray(0, len)));
  }
}

/** A copy of the first `max` bytes of the pieces (never more: the pieces may be huge). */
function concat(pieces: readonly Uint8Array[], max: number): Uint8Array {
  let total = 0;
  for (const p of pieces) total += p.length;
  const out = new Uint8Array(Math.min(total, max));
  let n = 0;
  for (const p of pieces) {
    if (n >= out.length) break;
    const take = p.subarray(0, out.length - n);
    out.set(take, n);
    n += take.length;
  }
  return out; // a copy: the pieces are not kept alive
}
