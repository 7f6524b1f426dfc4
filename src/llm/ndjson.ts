// Newline-delimited JSON off an HTTP body (Ollama streams one JSON object per line). The lines are
// cut from bytes as they arrive; a line is only decoded once it is whole, so a character split
// across two network reads is never mangled.

export class LineTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`a line of the stream is longer than ${limit} bytes`);
    this.name = "LineTooLongError";
  }
}

const NEWLINE = 0x0a;

/** The chunks of a web stream (a fetch body), cancelling it if the reader stops early. */
async function* chunksOf(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (!("getReader" in body)) return yield* body;
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield value;
    }
    finished = true;
  } finally {
    // an early stop (an error, a consumer that returned) releases the connection
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * The non-empty lines of a byte stream, without their line ends. A line longer than
 * `maxLineBytes` ends the stream with LineTooLongError (a broken or hostile server must not make
 * the daemon buffer without bound). The last line need not end with a newline.
 */
export async function* readLines(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>, maxLineBytes = 32 << 20): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const take = (tail: Uint8Array): string => {
    let bytes = tail;
    if (pending.length > 0) {
      bytes = new Uint8Array(pendingBytes + tail.length);
      let at = 0;
      for (const p of pending) {
        bytes.set(p, at);
        at += p.length;
      }
      bytes.set(tail, at);
      pending = [];
      pendingBytes = 0;
    }
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 0x0d) end--;
    return decoder.decode(end === bytes.length ? bytes : bytes.subarray(0, end));
  };
  for await (const chunk of chunksOf(body)) {
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      if (pendingBytes + nl - start > maxLineBytes) throw new LineTooLongError(maxLineBytes);
      const line = take(chunk.subarray(start, nl));
      start = nl + 1;
      if (line.trim()) yield line;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      pendingBytes += rest.length;
      if (pendingBytes > maxLineBytes) throw new LineTooLongError(maxLineBytes);
      // the chunk's buffer may be reused by the reader: keep a copy
      pending.push(rest.slice());
    }
  }
  if (pendingBytes > 0) {
    const line = take(new Uint8Array(0));
    if (line.trim()) yield line;
  }
}
