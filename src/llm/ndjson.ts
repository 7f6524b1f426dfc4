// Newline-delimited JSON off an HTTP body (Ollama streams one JSON object per line). Each network
// read is decoded once, in streaming mode (a character split across two reads is kept whole), and
// cut into the lines it completes, handed over together: one await per read, not one per line,
// which is most of the cost when a server sends a token a line.

class LineTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`a line of the stream is longer than ${limit} characters`);
    this.name = "LineTooLongError";
  }
}

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
 * The non-empty lines of a byte stream, without their line ends, in batches (the lines each read
 * completed). A line longer than `maxLineChars` ends the stream with LineTooLongError: a broken
 * or hostile server must not make the daemon buffer without bound. The last line need not end
 * with a newline.
 */
export async function* readLineBatches(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>, maxLineChars = 32 << 20): AsyncGenerator<string[]> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of chunksOf(body)) {
    const part = decoder.decode(chunk, { stream: true });
    // a long line arriving in many reads is only gathered, not scanned again on every read
    if (!part.includes("\n")) {
      pending += part;
      if (pending.length > maxLineChars) throw new LineTooLongError(maxLineChars);
      continue;
    }
    const lines = (pending + part).split("\n");
    pending = lines.pop()!;
    if (pending.length > maxLineChars) throw new LineTooLongError(maxLineChars);
    const batch: string[] = [];
    for (const line of lines) {
      if (line.length > maxLineChars) throw new LineTooLongError(maxLineChars);
      const clean = line.endsWith("\r") ? line.slice(0, -1) : line;
      // a JSON line starts with "{": only a line that starts with a blank needs a closer look
      if (clean && (clean.charCodeAt(0) > 32 || clean.trim())) batch.push(clean);
    }
    if (batch.length > 0) yield batch;
  }
  const last = pending + decoder.decode();
  if (last.trim()) yield [last.endsWith("\r") ? last.slice(0, -1) : last];
}

/** The same lines one at a time (for callers that read few). */
export async function* readLines(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>, maxLineChars?: number): AsyncGenerator<string> {
  for await (const batch of readLineBatches(body, maxLineChars)) yield* batch;
}
