// Writing messages to a byte stream in order, with backpressure (the message writer of the stdio
// transport). Each message goes out as `message + "\n"` and nothing else is ever written.
//
// - Messages handed over in the same turn of the event loop go out in one write: a streamed reply
//   is thousands of small events, and a write per event costs more than the event itself. A batch
//   that reaches MAX_BATCH_CHARS goes at once, so the memory it holds stays bounded.
// - When write() returns false, later batches wait in an in-order queue until 'drain'.
// - A write error or a closed stream (EPIPE when the reader went away) is reported once through
//   onFailure; queued messages are dropped and later ones ignored.
// - A reader that stays but stops reading is a reader gone too: once more than maxPendingChars
//   wait (queued here and buffered in the stream), the writer fails the same way. Without that a
//   client that stopped reading made the daemon hold every event and answer meant for it, for as
//   long as it lived (a WebSocket client is cut off the same way: ws-connection.ts).
// - The stream is never ended or destroyed here: it usually is process.stdout, which belongs to
//   the process.
import type { Logger } from "../log/logger.js";

/** Characters of queued messages that are written at once instead of waiting for the next turn. */
export const MAX_BATCH_CHARS = 64 * 1024;

/** What may wait for a reader by default: two of the longest lines a peer accepts (ndjson-lines.ts). */
export const DEFAULT_MAX_PENDING_CHARS = 2 * 64 * 1024 * 1024;

/** The writer's reader has left this much unread: it is treated as gone. */
export class ReaderNotReading extends Error {
  constructor(readonly pendingChars: number) {
    super(`the client has left ${Math.round(pendingChars / (1024 * 1024))} MiB of output unread`);
  }
}

export class OrderedWriter {
  private readonly queue: string[] = [];
  private queuedChars = 0;
  private waitingDrain = false;
  private dead = false;
  private gaveUp = false;
  private inflight = 0; // writes handed to the stream whose callback has not run yet
  private flushWaiters: Array<() => void> = [];
  private batch: string[] = [];
  private batchChars = 0;
  private batchScheduled = false;

  constructor(
    private readonly output: NodeJS.WritableStream,
    /** the stream failed (reported once); the connection should close */
    private readonly onFailure: (err: unknown) => void,
    private readonly log?: Logger,
    private readonly connId?: string,
    private readonly maxPendingChars = DEFAULT_MAX_PENDING_CHARS,
  ) {
    output.on("error", (err) => this.failed(err));
    output.on("close", () => this.failed(new Error("output closed")));
  }

  /** false once the stream failed */
  get alive(): boolean {
    return !this.dead;
  }

  /** The reader left too much unread: what the stream still buffers for it will never be read. */
  get abandoned(): boolean {
    return this.gaveUp;
  }

  /** Queues one message (a no-op once the stream failed). */
  write(message: string): void {
    if (this.dead) return;
    this.batch.push(message + "\n");
    this.batchChars += message.length + 1;
    const pending = this.batchChars + this.queuedChars + ((this.output as { writableLength?: number }).writableLength ?? 0);
    if (pending > this.maxPendingChars) {
      this.log?.warn({ conn: this.connId, pendingChars: pending, maxPendingChars: this.maxPendingChars }, "stdio transport: the client is not reading its output; closing the connection");
      this.gaveUp = true;
      return this.failed(new ReaderNotReading(pending));
    }
    if (this.batchChars >= MAX_BATCH_CHARS) this.flushBatch();
    else if (!this.batchScheduled) {
      this.batchScheduled = true;
      setImmediate(() => this.flushBatch());
    }
  }

  /** Resolves when every message given to write() has been handed to the stream (or it failed). */
  flushed(): Promise<void> {
    return new Promise((resolve) => {
      this.flushWaiters.push(resolve);
      this.checkFlushed();
    });
  }

  private flushBatch(): void {
    this.batchScheduled = false;
    if (this.batch.length === 0) return;
    const text = this.batch.join("");
    this.batch = [];
    this.batchChars = 0;
    if (this.dead) return this.checkFlushed();
    if (this.waitingDrain) {
      this.queue.push(text);
      this.queuedChars += text.length;
    } else this.writeNow(text);
  }

  private writeNow(text: string): void {
    let ok: boolean;
    this.inflight++;
    try {
      ok = this.output.write(text, this.onWriteDone);
    } catch (err) {
      this.inflight--;
      this.failed(err);
      return;
    }
    if (!ok && !this.dead) {
      this.waitingDrain = true;
      this.output.once("drain", this.onDrain);
    }
  }

  private readonly onWriteDone = (err?: Error | null): void => {
    this.inflight--;
    if (err) this.failed(err);
    else this.checkFlushed();
  };

  private readonly onDrain = (): void => {
    this.waitingDrain = false;
    while (this.queue.length > 0 && !this.waitingDrain && !this.dead) {
      const text = this.queue.shift()!;
      this.queuedChars -= text.length;
      this.writeNow(text);
    }
    this.checkFlushed();
  };

  private checkFlushed(): void {
    if (this.flushWaiters.length === 0) return;
    if (this.dead || (this.batch.length === 0 && this.queue.length === 0 && !this.waitingDrain && this.inflight === 0)) {
      for (const w of this.flushWaiters.splice(0)) w();
    }
  }

  private failed(err: unknown): void {
    if (this.dead) return;
    this.dead = true;
    this.log?.debug({ err, conn: this.connId }, "stdio transport: output failed, closing");
    this.queue.length = 0;
    this.queuedChars = 0;
    this.batch = [];
    if (this.waitingDrain) {
      this.waitingDrain = false;
      this.output.removeListener("drain", this.onDrain);
    }
    this.checkFlushed();
    this.onFailure(err);
  }
}
