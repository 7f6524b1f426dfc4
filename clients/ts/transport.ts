// The transport side of the client: what a connection carrying whole JSON-RPC messages looks
// like to PithClient, and the plumbing every concrete transport (node.ts, browser.ts, tests' own)
// shares. That plumbing is the connection core in protocol/connection-core.ts, the same one the
// daemon's transports use: messages that arrive before a listener are kept, messages that arrive
// after close() are dropped, onClose fires exactly once. Imports no Node module.
import { ConnectionCore } from "../../protocol/connection-core.js";

/** Why a transport closed (every field optional: not every transport knows). */
export interface CloseInfo {
  /** WebSocket close code */
  code?: number;
  reason?: string;
  /** the error that ended the connection, if one did */
  error?: Error;
  /** stdio: the child's exit code / signal */
  exitCode?: number | null;
  signal?: string | null;
}

/**
 * One connection carrying whole JSON-RPC messages as text (a WebSocket frame, a stdio line).
 * Like a MessageChannel port: send, receive, learn that it closed, close it.
 * `onClose` listeners registered after the close are called too (asynchronously).
 */
export interface Transport {
  send(text: string): void;
  onMessage(cb: (text: string) => void): void;
  onClose(cb: (info: CloseInfo) => void): void;
  close(): void;
}

/**
 * Plumbing shared by the transports: keeps messages until a listener is attached (delivered on a
 * microtask after the first one is, in order), drops messages that arrive after close() was
 * called, fires onClose exactly once. A concrete transport calls deliver() for each incoming
 * message and closedWith() once the connection is gone, and sets `closing` in its close().
 */
export class TransportBase {
  private readonly core = new ConnectionCore<CloseInfo>();
  private closeRequested = false;

  /** set by close(): later messages are dropped */
  protected get closing(): boolean {
    return this.closeRequested;
  }
  protected set closing(value: boolean) {
    this.closeRequested ||= value;
    if (value) this.core.stopReceiving();
  }

  get closed(): boolean {
    return this.core.isClosed;
  }

  onMessage(cb: (text: string) => void): void {
    this.core.onMessage(cb);
  }

  onClose(cb: (info: CloseInfo) => void): void {
    this.core.onClose(cb);
  }

  /** Called by the concrete transport for each incoming message. */
  protected deliver(text: string): void {
    this.core.receive(text);
  }

  /** Called by the concrete transport once the connection is gone. */
  protected closedWith(info: CloseInfo): void {
    this.core.close(info);
  }
}
