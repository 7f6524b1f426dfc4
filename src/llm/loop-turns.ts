// Gives the event loop back during a long stream. An SDK reads its HTTP body through a web
// stream: while undici holds buffered chunks, each read resolves as a microtask, so a fast (or
// hostile) endpoint's reply is parsed in one unbroken chain of microtasks and nothing else runs
// (no other session's request is read, no timer fires) until the buffer runs dry: seconds, on an
// endless reply. Every so many events the clock is read, and past a slice of time the stream
// waits for setImmediate, after the loop has polled for I/O.
import { setImmediate as nextTurn } from "node:timers/promises";

/** Events between two looks at the clock: reading it per delta would cost more than the delta. */
const EVENTS_PER_CHECK = 64;
/** The longest a stream keeps the loop to itself. */
const SLICE_MS = 4;

export class LoopTurns {
  private events = 0;
  private since = performance.now();

  /** Counts an event; true when the stream has had the loop long enough and should wait a turn. */
  due(): boolean {
    if (++this.events < EVENTS_PER_CHECK) return false;
    this.events = 0;
    const now = performance.now();
    if (now - this.since < SLICE_MS) return false;
    this.since = now;
    return true;
  }

  /** Resolves on a later turn of the event loop. */
  wait(): Promise<void> {
    return nextTurn().then(() => {
      this.since = performance.now();
    });
  }
}
