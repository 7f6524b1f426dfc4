// The part of a JSON-RPC connection that does not depend on what carries the bytes, shared by the
// daemon's transports (src/rpc: stdio lines, WebSocket frames) and the client's (clients/ts:
// child-process pipes, `ws`, the browser's WebSocket). After vscode-jsonrpc's split: a transport
// is a message reader (framing: bytes or frames in, whole messages out), a message writer
// (messages out) and this connection core between the reader and whoever handles the messages.
//
// Why it lives in protocol/: it is the only layer both src/ and clients/ts may import (src/ never
// imports clients/, clients/ never imports src/). It is not part of the wire contract and imports
// nothing at all (no zod, no Node module), so the browser bundle of clients/ts can include it and
// protocol/index.ts does not re-export it.
//
// What it guarantees, whatever the transport:
// - Incoming items (messages, and "a message over the size limit was dropped" notices) that arrive
//   before any message handler is registered are kept, in order, and delivered on a microtask after
//   the first message handler is registered: the caller registers its other handlers (onOversize,
//   onClose, a client's listeners) in the same tick and misses nothing. Until that backlog is
//   delivered, newer items queue behind it, so order is kept.
// - Items that arrive after the connection closed, or after stopReceiving() (the local side asked
//   to close), are dropped. Items received before that are still delivered.
// - Close handlers run exactly once, with the close info. A handler registered after the close is
//   called too, on a microtask.
// - Every handler is called with the others' failures isolated when `onHandlerError` is given
//   (the daemon logs them); without it, a throwing handler's error reaches whoever delivered the
//   item (the client's transports: the concrete transport decides).

/** One incoming item, as a reader hands it over. */
export type IncomingItem = { kind: "message"; text: string } | OversizeItem;
/** `id`: the message's id, when the reader could read it from the start of the message */
type OversizeItem = { kind: "oversize"; bytes: number; id?: string | number };

export interface ConnectionCoreOptions {
  /** a handler threw; without this option the error propagates to the caller of receive() */
  onHandlerError?(error: unknown): void;
}

export class ConnectionCore<CloseInfo = void> {
  private readonly messageHandlers: Array<(text: string) => void> = [];
  private readonly oversizeHandlers: Array<(bytes: number, id?: string | number) => void> = [];
  private closeHandlers: Array<(info: CloseInfo) => void> = [];
  private backlog: IncomingItem[] = [];
  private flushScheduled = false;
  private receiving = true;
  /** set once, by close(): wrapped so that CloseInfo = void still reads as "closed" */
  private closedWith: { info: CloseInfo } | undefined;

  constructor(private readonly options: ConnectionCoreOptions = {}) {}

  /** whether close() has run (close handlers fired) */
  get isClosed(): boolean {
    return this.closedWith !== undefined;
  }

  /** the info close() was called with, once closed */
  get closeInfo(): CloseInfo | undefined {
    return this.closedWith?.info;
  }

  /** false once closed or stopReceiving() was called: later items are dropped */
  get isReceiving(): boolean {
    return this.receiving;
  }

  // ---- the reader's side ---------------------------------------------------------------------

  /** One complete incoming message. */
  receive(text: string): void {
    this.push({ kind: "message", text });
  }

  /** An incoming message over the size limit was discarded (`bytes` long; its id when known). */
  receiveOversize(bytes: number, id?: string | number): void {
    this.push(id === undefined ? { kind: "oversize", bytes } : { kind: "oversize", bytes, id });
  }

  /** The local side is closing: items that arrive from now on are dropped. */
  stopReceiving(): void {
    this.receiving = false;
  }

  /** The connection is gone: stops receiving and fires the close handlers, once. Returns false if it was already closed. */
  close(info: CloseInfo): boolean {
    this.receiving = false;
    if (this.closedWith) return false;
    this.closedWith = { info };
    const handlers = this.closeHandlers;
    this.closeHandlers = [];
    for (const h of handlers) this.call(h, info);
    return true;
  }

  // ---- the consumer's side -------------------------------------------------------------------

  onMessage(handler: (text: string) => void): void {
    this.messageHandlers.push(handler);
    if (this.messageHandlers.length === 1 && this.backlog.length > 0) this.scheduleFlush();
  }

  onOversize(handler: (bytes: number, id?: string | number) => void): void {
    this.oversizeHandlers.push(handler);
  }

  onClose(handler: (info: CloseInfo) => void): void {
    const closed = this.closedWith;
    if (closed) queueMicrotask(() => this.call(handler, closed.info));
    else this.closeHandlers.push(handler);
  }

  // ---- internals -----------------------------------------------------------------------------

  private push(item: IncomingItem): void {
    if (!this.receiving) return;
    if (this.messageHandlers.length === 0 || this.backlog.length > 0) {
      this.backlog.push(item);
      return;
    }
    this.deliver(item);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    queueMicrotask(() => {
      this.flushScheduled = false;
      try {
        // one at a time: a handler may receive more items meanwhile, which queue behind these
        while (this.backlog.length > 0) this.deliver(this.backlog.shift()!);
      } finally {
        // a handler threw (no onHandlerError): what is left still goes, in order
        if (this.backlog.length > 0) this.scheduleFlush();
      }
    });
  }

  private deliver(item: IncomingItem): void {
    if (item.kind === "message") for (const h of this.messageHandlers.slice()) this.call(h, item.text);
    else for (const h of this.oversizeHandlers.slice()) this.call((it: OversizeItem) => h(it.bytes, it.id), item);
  }

  private call<A>(fn: (arg: A) => void, arg: A): void {
    const report = this.options.onHandlerError;
    if (!report) return fn(arg);
    try {
      fn(arg);
    } catch (err) {
      report(err);
    }
  }
}
