// JSON-RPC over a pair of byte streams (normally stdin/stdout): one message per line.
//
// Three parts, wired here: the line reader (protocol/ndjson-lines.ts: how bytes become messages,
// the size limit, shared with the client), the ordered writer (ordered-writer.ts: messages out, in order, with backpressure)
// and the connection core (protocol/connection-core.ts: messages that arrive before a handler
// are kept, close fires once), which the WebSocket transport shares.
//
// Input: EOF delivers an unterminated last line, then fires onClose; an input error or a
// 'close' without 'end' (the stream was destroyed: a partial line is not a complete message)
// fires onClose. An oversize line is answered by the RPC layer (onOversize, with the request's id
// when the line starts with it: request-id-head.ts) and logged here.
//
// Lifecycle: input EOF fires onClose but does not stop output, so answers to the last requests
// still go out (`echo '{...}' | pith`); close() stops reading, drops later sends and fires
// onClose, while messages already queued are still written. A write error (EPIPE when the
// reader went away) closes the connection quietly: the error is logged at debug level, queued
// messages are dropped, onClose fires. `flushed()` resolves once everything handed to send()
// has been accepted by the output stream (or output failed).
import { ConnectionCore } from "../../protocol/connection-core.js";
import { DEFAULT_MAX_LINE_BYTES, LineReader } from "../../protocol/ndjson-lines.js";
import type { Logger } from "../log/logger.js";
import { OrderedWriter } from "./ordered-writer.js";
import { headInfo } from "./request-id-head.js";
import type { Connection } from "./transport.js";

export { MAX_BATCH_CHARS } from "./ordered-writer.js";

export interface StdioOptions {
  /** longest accepted line in bytes, without LF / trailing CR; default 64 MiB */
  maxLineBytes?: number;
  /** output the reader may leave unread before it counts as gone (ordered-writer.ts); default 128 MiB */
  maxPendingChars?: number;
  logger?: Logger;
}

export interface StdioConnection extends Connection {
  readonly kind: "stdio";
  /** resolves when every message given to send() has been handed to the output (or output failed) */
  flushed(): Promise<void>;
  /** the reader left too much output unread (ordered-writer.ts): what is buffered for it is never read */
  readonly abandoned: boolean;
}

let nextId = 0;

export function stdioConnection(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, opts: StdioOptions = {}): StdioConnection {
  const maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const log = opts.logger;
  const id = `stdio-${++nextId}`;
  const core = new ConnectionCore({ onHandlerError: (err) => log?.error({ err, conn: id }, "stdio transport: handler threw") });
  const framer = new LineReader(
    {
      line: (text) => core.receive(text),
      oversize(bytes, head) {
        log?.warn({ conn: id, bytes, maxLineBytes }, "stdio transport: oversize line discarded");
        // a response (the client answering a server request) has no request to fail: id null as before
        const info = headInfo(head);
        core.receiveOversize(bytes, info.response ? undefined : info.id);
      },
    },
    maxLineBytes,
  );

  // ---- input -----------------------------------------------------------------------------------

  let reading = true; // input listeners attached
  const stillReading = () => reading;

  const onData = (chunk: Buffer | string) => framer.push(chunk, stillReading);
  const onEnd = () => {
    if (!reading) return;
    framer.end();
    stopReading();
    core.close();
  };
  const onInputError = (err: Error) => {
    log?.debug({ err, conn: id }, "stdio transport: input error");
    if (!reading) return;
    stopReading();
    core.close();
  };
  const onInputClose = () => {
    if (!reading) return;
    stopReading();
    core.close();
  };

  function stopReading(): void {
    if (!reading) return;
    reading = false;
    input.removeListener("data", onData);
    input.removeListener("end", onEnd);
    input.removeListener("close", onInputClose);
    // the error listener stays, so a late input error cannot become an uncaught exception
    framer.reset();
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

  // ---- output ----------------------------------------------------------------------------------

  const writer = new OrderedWriter(
    output,
    () => {
      stopReading();
      core.close();
    },
    log,
    id,
    opts.maxPendingChars,
  );
  let sendClosed = false; // close() was called: later sends are dropped

  return {
    id,
    kind: "stdio",
    send(message: string): void {
      if (!sendClosed) writer.write(message);
    },
    close(): void {
      sendClosed = true;
      stopReading();
      core.close();
    },
    onMessage: (handler) => core.onMessage(handler),
    onOversize: (handler) => core.onOversize(handler),
    onClose: (handler) => core.onClose(handler),
    flushed: () => writer.flushed(),
    get abandoned() {
      return writer.abandoned;
    },
  };
}
