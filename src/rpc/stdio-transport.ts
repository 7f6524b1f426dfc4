// JSON-RPC over a pair of byte streams (normally stdin/stdout): one message per line.
//
// Framing:
// - Lines end at LF (0x0A) only; one trailing CR is stripped. U+2028/U+2029 and lone CRs are
//   ordinary characters (node's readline splits on them, so it is not used).
// - Work is done on Buffers; a line is decoded as UTF-8 only once it is complete, so chunks that
//   split a line or a multi-byte character are fine. Invalid UTF-8 decodes to U+FFFD.
// - Empty lines (after the CR strip) are ignored.
// - A line longer than maxLineBytes (not counting LF and the stripped CR) is dropped without
//   being held in memory: once it is known to be too long its bytes are only counted until the
//   next LF, and onOversize(bytes) fires once, at its end, with its full length. The next line is
//   read normally.
// - An unterminated last line at EOF is delivered like a terminated one.
// - EOF (or an input error) fires onClose.
//
// Output: send() writes `message + "\n"` and nothing else is ever written. When write() returns
// false the following messages wait in an in-order queue until 'drain'. A write error (EPIPE
// when the reader went away) closes the connection quietly: the error is logged at debug level,
// queued messages are dropped, onClose fires.
//
// Lifecycle: input EOF fires onClose but does not stop output, so answers to the last requests
// still go out (`echo '{...}' | pith`); close() stops reading, drops later sends and fires
// onClose, while messages already queued are still written. `flushed()` resolves once everything
// handed to send() has been accepted by the output stream (or output failed). The output stream
// is never ended or destroyed here: it usually is process.stdout, which belongs to the process.
//
// Messages that arrive before any onMessage handler is registered are kept and delivered, in
// order, on a microtask after the first handler is registered.
import type { Logger } from "../log/logger.js";
import type { Connection } from "./transport.js";

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

export interface StdioOptions {
  /** longest accepted line in bytes, without LF / trailing CR; default 64 MiB */
  maxLineBytes?: number;
  logger?: Logger;
}

export interface StdioConnection extends Connection {
  readonly kind: "stdio";
  /** resolves when every message given to send() has been handed to the output (or output failed) */
  flushed(): Promise<void>;
}

type Pending = { kind: "message"; text: string } | { kind: "oversize"; bytes: number };

let nextId = 0;

/** Characters of queued messages that are written at once instead of waiting for the next turn. */
export const MAX_BATCH_CHARS = 64 * 1024;

export function stdioConnection(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  opts: StdioOptions = {},
): StdioConnection {
  const maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
    throw new RangeError(`stdioConnection: maxLineBytes must be a positive integer, got ${maxLineBytes}`);
  }
  const log = opts.logger;
  const id = `stdio-${++nextId}`;

  const messageHandlers: Array<(text: string) => void> = [];
  const oversizeHandlers: Array<(bytes: number) => void> = [];
  const closeHandlers: Array<() => void> = [];
  const pending: Pending[] = [];
  let closed = false; // onClose fired
  let reading = true; // input listeners attached
  let sendClosed = false; // close() called: later sends are dropped

  function call<A extends unknown[]>(fn: (...args: A) => void, ...args: A): void {
    try {
      fn(...args);
    } catch (err) {
      log?.error({ err, conn: id }, "stdio transport: handler threw");
    }
  }

  function emit(ev: Pending): void {
    // Until the first handler is registered (and the queue flushed), keep order by queueing.
    if (messageHandlers.length === 0 || pending.length > 0) {
      pending.push(ev);
      return;
    }
    deliver(ev);
  }

  function flushPending(): void {
    while (pending.length > 0) deliver(pending.shift()!);
  }

  function deliver(ev: Pending): void {
    if (ev.kind === "message") {
      for (const h of messageHandlers.slice()) call(h, ev.text);
    } else {
      log?.warn({ conn: id, bytes: ev.bytes, maxLineBytes }, "stdio transport: oversize line discarded");
      for (const h of oversizeHandlers.slice()) call(h, ev.bytes);
    }
  }

  function fireClose(): void {
    if (closed) return;
    closed = true;
    for (const h of closeHandlers.splice(0)) call(h);
  }

  // ---- input: line framing ------------------------------------------------------------------

  let parts: Buffer[] = []; // pieces of the current line (no LF in them)
  let partsBytes = 0;
  let discarding = false; // current line is already known to be oversize
  let discardBytes = 0;
  let lastByteCR = false; // last byte seen in the current line was CR (for discard counting)

  function append(piece: Buffer): void {
    lastByteCR = piece[piece.length - 1] === CR;
    if (discarding) {
      discardBytes += piece.length;
      return;
    }
    // Allow one extra byte: it may be the CR that is stripped at the LF.
    if (partsBytes + piece.length > maxLineBytes + 1) {
      discarding = true;
      discardBytes = partsBytes + piece.length;
      parts = [];
      partsBytes = 0;
      return;
    }
    parts.push(piece);
    partsBytes += piece.length;
  }

  function endLine(): void {
    if (discarding) {
      const bytes = discardBytes - (lastByteCR ? 1 : 0);
      discarding = false;
      discardBytes = 0;
      lastByteCR = false;
      emit({ kind: "oversize", bytes });
      return;
    }
    const line = parts.length === 1 ? parts[0] : Buffer.concat(parts, partsBytes);
    parts = [];
    partsBytes = 0;
    lastByteCR = false;
    let len = line.length;
    if (len > 0 && line[len - 1] === CR) len--;
    if (len === 0) return;
    if (len > maxLineBytes) {
      emit({ kind: "oversize", bytes: len });
      return;
    }
    emit({ kind: "message", text: line.toString("utf8", 0, len) });
  }

  function onData(chunk: Buffer | string): void {
    const buf = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    let start = 0;
    while (reading && start < buf.length) {
      const nl = buf.indexOf(LF, start);
      const end = nl === -1 ? buf.length : nl;
      if (end > start) append(buf.subarray(start, end));
      if (nl === -1) break;
      endLine();
      start = nl + 1;
    }
  }

  function onEnd(): void {
    if (!reading) return;
    if (partsBytes > 0 || discarding) endLine();
    stopReading();
    fireClose();
  }

  function onInputError(err: Error): void {
    log?.debug({ err, conn: id }, "stdio transport: input error");
    if (!reading) return;
    stopReading();
    fireClose();
  }

  function onInputClose(): void {
    // 'close' without 'end' (destroyed): whatever is partial is not a complete message.
    if (!reading) return;
    stopReading();
    fireClose();
  }

  function stopReading(): void {
    if (!reading) return;
    reading = false;
    input.removeListener("data", onData);
    input.removeListener("end", onEnd);
    input.removeListener("close", onInputClose);
    // keep an error listener so a late input error cannot become an uncaught exception
    parts = [];
    partsBytes = 0;
    discarding = false;
    try {
      input.pause();
    } catch {
      /* ignore */
    }
  }

  input.on("error", onInputError);
  input.on("end", onEnd);
  input.on("close", onInputClose);
  input.on("data", onData);

  // ---- output: ordered writes with backpressure ---------------------------------------------

  const queue: string[] = [];
  let waitingDrain = false;
  let outputDead = false;
  let inflight = 0; // writes handed to output whose callback has not run yet
  let flushWaiters: Array<() => void> = [];

  // Messages sent in the same turn of the event loop go out in one write: a streamed reply is
  // thousands of small events, and a write per event costs more than the event itself.
  let batch: string[] = [];
  let batchBytes = 0;
  let batchScheduled = false;

  function flushBatch(): void {
    batchScheduled = false;
    if (batch.length === 0) return;
    const text = batch.join("");
    batch = [];
    batchBytes = 0;
    if (outputDead) return checkFlushed();
    if (waitingDrain) queue.push(text);
    else write(text);
  }

  function checkFlushed(): void {
    if (flushWaiters.length === 0) return;
    if (outputDead || (batch.length === 0 && queue.length === 0 && !waitingDrain && inflight === 0)) {
      for (const w of flushWaiters.splice(0)) w();
    }
  }

  function outputFailed(err: unknown): void {
    if (outputDead) return;
    outputDead = true;
    log?.debug({ err, conn: id }, "stdio transport: output failed, closing");
    queue.length = 0;
    batch = [];
    if (waitingDrain) {
      waitingDrain = false;
      output.removeListener("drain", onDrain);
    }
    checkFlushed();
    stopReading();
    fireClose();
  }

  function onWriteDone(err?: Error | null): void {
    inflight--;
    if (err) outputFailed(err);
    else checkFlushed();
  }

  function write(line: string): void {
    let ok: boolean;
    inflight++;
    try {
      ok = output.write(line, onWriteDone);
    } catch (err) {
      inflight--;
      outputFailed(err);
      return;
    }
    if (!ok && !outputDead) {
      waitingDrain = true;
      output.once("drain", onDrain);
    }
  }

  function onDrain(): void {
    waitingDrain = false;
    while (queue.length > 0 && !waitingDrain && !outputDead) write(queue.shift()!);
    checkFlushed();
  }

  output.on("error", outputFailed);
  output.on("close", () => outputFailed(new Error("output closed")));

  const conn: StdioConnection = {
    id,
    kind: "stdio",
    send(message: string): void {
      if (outputDead || sendClosed) return;
      batch.push(message + "\n");
      batchBytes += message.length + 1;
      // a large batch goes now, so the memory it holds stays bounded
      if (batchBytes >= MAX_BATCH_CHARS) flushBatch();
      else if (!batchScheduled) {
        batchScheduled = true;
        setImmediate(flushBatch);
      }
    },
    close(): void {
      sendClosed = true;
      stopReading();
      fireClose();
    },
    onMessage(handler) {
      messageHandlers.push(handler);
      // Deliver what arrived earlier on a microtask, once the caller has registered its other
      // handlers (onOversize) in the same tick.
      if (messageHandlers.length === 1 && pending.length > 0) queueMicrotask(flushPending);
    },
    onOversize(handler) {
      oversizeHandlers.push(handler);
    },
    onClose(handler) {
      if (closed) queueMicrotask(() => call(handler));
      else closeHandlers.push(handler);
    },
    flushed(): Promise<void> {
      return new Promise((resolve) => {
        flushWaiters.push(resolve);
        checkFlushed();
      });
    },
  };
  return conn;
}
