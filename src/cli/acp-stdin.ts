// `pith acp`'s stdin as the ACP SDK reads it: complete lines only, none over the size limit.
//
// Why not hand stdin to the SDK's ndJsonStream directly: its line reader meets a line over its
// limit (32 MiB) by failing the whole stream, the connection closes, and pith took that for the
// editor hanging up: every session of the editor was closed and its runs aborted, exit 0. So the
// lines are cut here first, by the stdio transport's own framer (protocol/ndjson-lines.ts: an oversize
// line is counted and dropped, never held), and an oversize line is answered here with -32600
// (the id read from its start when it is there, else null) while every other line goes on to the
// SDK unchanged. The SDK's own limit is set high enough that it can never trip on what passes.
import type { Logger } from "pino";
import { ErrorCodes } from "../../protocol/errors.js";
import { LineReader } from "../../protocol/ndjson-lines.js";
import { headInfo } from "../rpc/request-id-head.js";

/** The largest ACP message pith reads (the SDK's default limit, kept). */
const ACP_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/**
 * For the SDK's ndJsonStream options: what passes the framer, re-encoded, is at most 3 times its
 * length (each invalid UTF-8 byte becomes U+FFFD, 3 bytes), so the SDK never refuses it.
 */
export const SDK_MAX_MESSAGE_BYTES = 3 * ACP_MAX_MESSAGE_BYTES + 16;

export interface BoundedInputOptions {
  log: Logger;
  /** writes one JSON-RPC message line (the error answer to an oversize line) */
  answer(line: string): void;
  maxMessageBytes?: number;
}

/** The JSON-RPC error line for an oversize message, or undefined when it must not be answered (a response). */
export function oversizeAnswer(bytes: number, head: string, limit: number): string | undefined {
  const info = headInfo(head);
  if (info.response) return undefined;
  return JSON.stringify({
    jsonrpc: "2.0",
    id: info.id ?? null,
    error: { code: ErrorCodes.InvalidRequest, message: `message of ${bytes} bytes is over the ${limit}-byte limit; discarded` },
  });
}

/** stdin as a web ReadableStream of whole lines (each ending in LF), oversize lines left out and answered. */
export function boundedAcpInput(input: NodeJS.ReadableStream, opts: BoundedInputOptions): ReadableStream<Uint8Array> {
  const limit = opts.maxMessageBytes ?? ACP_MAX_MESSAGE_BYTES;
  const { log } = opts;
  let done = false;
  const onData = (chunk: Buffer | string) => framer.push(chunk);
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const finish = () => {
    if (done) return;
    done = true;
    input.removeListener("data", onData);
    try {
      controller.close();
    } catch {
      /* already cancelled */
    }
  };
  const framer = new LineReader(
    {
      line(text) {
        controller.enqueue(Buffer.from(`${text}\n`, "utf8"));
        // backpressure: the SDK handles one message at a time; stdin waits while it is behind
        if ((controller.desiredSize ?? 1) <= 0) input.pause();
      },
      oversize(bytes, head) {
        const answer = oversizeAnswer(bytes, head, limit);
        log.warn({ bytes, limit, answered: answer !== undefined }, "acp: oversize message discarded");
        if (answer !== undefined) opts.answer(answer);
      },
    },
    limit,
  );
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        input.on("data", onData);
        input.on("end", () => {
          if (!done) framer.end();
          finish();
        });
        // destroyed without an end (shutdown): a partial line is not a message
        input.on("close", finish);
        input.on("error", (err) => {
          log.debug({ err }, "acp: stdin error");
          finish();
        });
      },
      pull() {
        if (!done) input.resume();
      },
      cancel() {
        done = true;
        input.removeListener("data", onData);
        input.pause();
      },
    },
    { highWaterMark: 16 },
  );
}
