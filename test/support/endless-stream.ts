// An endless reply, as a hostile or intercepted endpoint would stream it: the same delta frame
// again and again, many per write, until the client goes away. The fakes (fake-anthropic.ts,
// fake-openai.ts) give the frames in their API's shape; this module paces them.
//
// `maxBytes` is a safety stop, not part of the attack: past it the reply ends normally (its tail
// frames), so a client that never cuts the stream makes a test fail instead of running for ever.

export interface EndlessOptions {
  /** each delta's text (default 64 "x") */
  delta?: string;
  /** delta frames per write (default 256) */
  perWrite?: number;
  /** the safety stop in bytes of delta text (default 256 MiB) */
  maxBytes?: number;
}

/** How an endless reply ended: bytes of delta text sent, and whether the client cut it. */
export interface EndlessResult {
  sentBytes: number;
  cutByClient: boolean;
}

/**
 * Writes `head`, then `frame(delta)` repeatedly, then `tail` once the safety stop is reached.
 * `write` resolves false once the connection is gone; `onProgress` sees the bytes so far.
 */
export async function streamEndless(
  write: (text: string) => Promise<boolean>,
  parts: { head: string; frame: (delta: string) => string; tail: string },
  options: EndlessOptions,
  onProgress: (sentBytes: number) => void,
): Promise<EndlessResult> {
  const delta = options.delta ?? "x".repeat(64);
  const perWrite = options.perWrite ?? 256;
  const maxBytes = options.maxBytes ?? 256 << 20;
  const batch = parts.frame(delta).repeat(perWrite);
  const batchBytes = Buffer.byteLength(delta) * perWrite;
  let sentBytes = 0;
  if (!(await write(parts.head))) return { sentBytes, cutByClient: true };
  while (sentBytes < maxBytes) {
    if (!(await write(batch))) return { sentBytes, cutByClient: true };
    sentBytes += batchBytes;
    onProgress(sentBytes);
  }
  await write(parts.tail);
  return { sentBytes, cutByClient: false };
}
