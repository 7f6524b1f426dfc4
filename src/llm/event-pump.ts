// The Provider port's event stream over an SDK's stream of chunks, with one promise hop per
// chunk. Why not an `async *stream()`: each of its yields awaits, and its `for await` over the SDK
// awaits again, which cost about 2 µs per streamed delta on top of the SDK's own iterator, more
// than the 10% pith may add (issue 23; `npm run bench -- providers`). Here next() pulls the SDK's
// iterator and turns each chunk into events synchronously; events already made are handed out
// from a queue. The port's contract stays: never throws, ends with done or error.
import type { StreamEvent } from "./types.js";

/** One model call, as the pump drives it. Built on the first next(), as a generator's body would run. */
export interface EventSource<T> {
  /** the first event, before the request goes out */
  start(): StreamEvent;
  /** sends the request; its stream of chunks */
  open(): Promise<AsyncIterable<T>>;
  /** one chunk: pushes its events to `out`; throws to end the stream with an error (the chunk's events are dropped) */
  read(chunk: T, out: StreamEvent[]): void;
  /** the SDK's stream ended: pushes the last events, `done` last; throws to end with an error after the events it pushed */
  end(out: StreamEvent[]): void;
  /** the `error` event for what was thrown */
  fail(err: unknown): StreamEvent;
  /** runs once, when the stream finishes or the consumer stops early */
  dispose(): void;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

const enum Phase {
  New,
  Opening,
  Streaming,
  Finished,
}

class EventPump<T> implements AsyncIterableIterator<StreamEvent, undefined> {
  private source: EventSource<T> | undefined;
  private iterator: AsyncIterator<T> | undefined;
  private phase = Phase.New;
  private readonly out: StreamEvent[] = [];
  private head = 0;

  constructor(private readonly setup: () => EventSource<T>) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<StreamEvent, undefined>> {
    if (this.head < this.out.length) return Promise.resolve(this.take());
    switch (this.phase) {
      case Phase.New:
        return Promise.resolve(this.begin());
      case Phase.Opening:
        return this.open();
      case Phase.Streaming:
        return this.iterator!.next().then(this.onChunk, this.onError);
      default:
        return Promise.resolve(DONE);
    }
  }

  /** the consumer stopped early (a `break`): closes the SDK's stream, which aborts its request */
  async return(): Promise<IteratorResult<StreamEvent, undefined>> {
    const iterator = this.iterator;
    this.finish();
    this.out.length = this.head = 0;
    try {
      await iterator?.return?.();
    } catch {
      // the port never throws; the request is gone either way
    }
    return DONE;
  }

  throw(): Promise<IteratorResult<StreamEvent, undefined>> {
    return this.return();
  }

  private begin(): IteratorResult<StreamEvent, undefined> {
    let first: StreamEvent;
    try {
      this.source = this.setup();
      first = this.source.start();
    } catch (err) {
      // without a source there is no message to fail: this throws, as a generator's setup outside its try did
      if (!this.source) throw err;
      this.failWith(err);
      return this.take();
    }
    this.phase = Phase.Opening;
    return { done: false, value: first };
  }

  private open(): Promise<IteratorResult<StreamEvent, undefined>> {
    let opened: Promise<AsyncIterable<T>>;
    try {
      opened = this.source!.open();
    } catch (err) {
      this.failWith(err);
      return Promise.resolve(this.take());
    }
    return opened.then((stream) => {
      if (this.phase !== Phase.Opening) return DONE;
      this.iterator = stream[Symbol.asyncIterator]();
      this.phase = Phase.Streaming;
      return this.iterator.next().then(this.onChunk, this.onError);
    }, this.onError);
  }

  private readonly onChunk = (r: IteratorResult<T>): IteratorResult<StreamEvent, undefined> | Promise<IteratorResult<StreamEvent, undefined>> => {
    if (this.phase !== Phase.Streaming) return this.head < this.out.length ? this.take() : DONE;
    if (r.done) {
      try {
        this.source!.end(this.out);
        this.finish();
      } catch (err) {
        this.failWith(err, true);
      }
      return this.head < this.out.length ? this.take() : DONE;
    }
    try {
      this.source!.read(r.value, this.out);
    } catch (err) {
      this.failWith(err);
      return this.take();
    }
    // a chunk with no event of its own (a role, usage): on to the next
    if (this.out.length === 0) return this.iterator!.next().then(this.onChunk, this.onError);
    return this.take();
  };

  private readonly onError = (err: unknown): IteratorResult<StreamEvent, undefined> => {
    if (this.phase === Phase.Finished) return this.head < this.out.length ? this.take() : DONE;
    this.failWith(err);
    return this.take();
  };

  /** ends the stream with the error event; `keep` keeps the events already made */
  private failWith(err: unknown, keep = false): void {
    if (!keep) this.out.length = this.head = 0;
    this.out.push(this.source!.fail(err));
    this.finish();
  }

  private finish(): void {
    if (this.phase === Phase.Finished) return;
    this.phase = Phase.Finished;
    this.iterator = undefined;
    this.source?.dispose();
  }

  private take(): IteratorResult<StreamEvent, undefined> {
    const out = this.out;
    const value = out[this.head++]!;
    if (this.head === out.length) {
      // most chunks make one event: pop() is far cheaper than setting length
      if (this.head === 1) out.pop();
      else out.length = 0;
      this.head = 0;
    }
    return { done: false, value };
  }
}

/** The events of one model call; `setup` runs on the first next(). */
export function pumpEvents<T>(setup: () => EventSource<T>): AsyncIterableIterator<StreamEvent, undefined> {
  return new EventPump(setup);
}
