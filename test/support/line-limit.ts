// A line reader with a size limit, as several ACP clients have one: Python's asyncio StreamReader
// (64 KiB by default, used by the Python ACP SDK) raises on a longer line, and the SDK's example
// client then ended its receive loop. Put between the agent's stdout and the ACP SDK's
// ndJsonStream, it passes lines up to `limit` bytes (with their "\n") and, for a longer one:
//   "end"  - errors the stream, so the client's receive loop dies (what the Python SDK did);
//   "skip" - drops the line and records it (what a reader does that catches asyncio's error:
//            the over-long line is gone, the loop reads on).
interface RefusedLine {
  /** the line's size in bytes, with its "\n" */
  bytes: number;
  /** the line, when it ended (a refused line is kept for the test to inspect) */
  text: string;
}

export interface LimitedLines {
  /** what the client reads */
  readable: ReadableStream<Uint8Array>;
  /** lines over the limit, in order */
  refused: RefusedLine[];
  /** the error that ended the stream ("end" mode) */
  ended(): Error | undefined;
}

export const LINE_LIMIT = 64 * 1024;

export function limitLines(source: ReadableStream<Uint8Array>, onLong: "end" | "skip", limit = LINE_LIMIT): LimitedLines {
  const refused: RefusedLine[] = [];
  let endedBy: Error | undefined;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const transform = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
        const tail = chunk.subarray(start, nl + 1);
        const bytes = pendingBytes + tail.length;
        if (bytes > limit) {
          const text = Buffer.concat([...pending, tail]).toString("utf8").replace(/\n$/, "");
          refused.push({ bytes, text });
          if (onLong === "end") {
            endedBy = new Error(`a line of ${bytes} bytes is over the reader's limit of ${limit}`);
            controller.error(endedBy);
            return;
          }
        } else {
          for (const piece of pending) controller.enqueue(piece);
          controller.enqueue(tail);
        }
        pending = [];
        pendingBytes = 0;
        start = nl + 1;
      }
      if (start < chunk.length) {
        // copied: the source may reuse its buffer
        pending.push(chunk.slice(start));
        pendingBytes += chunk.length - start;
      }
    },
  });
  return { readable: source.pipeThrough(transform), refused, ended: () => endedBy };
}
