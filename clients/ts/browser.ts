// Browser entry: PithClient over the global WebSocket. Imports no Node module. Browsers cannot
// set an Authorization header on a WebSocket, so the token travels as the `pith.bearer.<token>`
// subprotocol (the server echoes it back in its 101 answer).
import { TransportBase, bearerSubprotocol, rpcUrl, type Transport } from "./client.js";

export * from "./client.js";

/** The part of the DOM WebSocket this file uses (tsconfig has no DOM lib). */
export interface DomWebSocket {
  readonly readyState: number;
  readonly protocol: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open" | "error", listener: () => void): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(type: "close", listener: (event: { code: number; reason: string; wasClean: boolean }) => void): void;
}
export type BrowserWebSocketConstructor = new (url: string, protocols?: string | string[]) => DomWebSocket;

const OPEN = 1;
const CONNECTING = 0;

/** A transport over a browser WebSocket (or anything with the same shape). */
export class BrowserWebSocketTransport extends TransportBase implements Transport {
  constructor(readonly socket: DomWebSocket) {
    super();
    socket.addEventListener("message", (event) => {
      if (typeof event.data === "string") this.deliver(event.data);
    });
    socket.addEventListener("close", (event) => this.closedWith({ code: event.code, reason: event.reason }));
  }

  send(text: string): void {
    if (this.socket.readyState !== OPEN) throw new Error("WebSocket is not open");
    this.socket.send(text);
  }

  close(): void {
    this.closing = true;
    if (this.socket.readyState === OPEN || this.socket.readyState === CONNECTING) this.socket.close(1000);
  }
}

export interface BrowserWebSocketOptions {
  /** the WebSocket constructor (default: globalThis.WebSocket) */
  WebSocket?: BrowserWebSocketConstructor;
}

/**
 * Connects to `pith serve` from a browser. `url` is the ws endpoint or the daemon's http origin
 * (`http://127.0.0.1:7777` → `ws://127.0.0.1:7777/rpc`). Resolves once open. A refused
 * handshake (bad token: 401, origin not allowed: 403) rejects without a status: browsers do
 * not expose it.
 */
export function connectBrowserWebSocket(url: string, token: string, options: BrowserWebSocketOptions = {}): Promise<BrowserWebSocketTransport> {
  const Ctor = options.WebSocket ?? (globalThis as unknown as { WebSocket?: BrowserWebSocketConstructor }).WebSocket;
  if (!Ctor) return Promise.reject(new Error("no WebSocket in this environment"));
  const socket = new Ctor(rpcUrl(url), [bearerSubprotocol(token)]);
  return new Promise((resolve, reject) => {
    let settled = false;
    // the transport is made now so no message between open and resolve is lost
    const transport = new BrowserWebSocketTransport(socket);
    socket.addEventListener("open", () => {
      if (!settled) (settled = true), resolve(transport);
    });
    socket.addEventListener("error", () => {
      if (!settled) (settled = true), reject(new Error(`WebSocket connection to ${rpcUrl(url)} failed`));
    });
    socket.addEventListener("close", (event) => {
      if (!settled) (settled = true), reject(new Error(`WebSocket closed before opening (code ${event.code})`));
    });
  });
}

/** Browser convenience: the token from a `#token=...` fragment (what `pith serve` prints to open). */
export function tokenFromHash(hash: string): string | undefined {
  const m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(hash);
  return m?.[1];
}
