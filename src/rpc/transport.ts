// A connection as the JSON-RPC layer sees it, whatever carries it (stdio lines, WebSocket
// frames). Transports deliver whole messages as text and send whole messages as text.

export interface Connection {
  /** unique per process, for logs and subscriptions */
  readonly id: string;
  readonly kind: "stdio" | "websocket";
  /** sends one serialized JSON-RPC message (a transport may drop it if the peer is gone) */
  send(message: string): void;
  /** closes the connection (WebSocket close code and reason where that applies) */
  close(code?: number, reason?: string): void;
  /** one complete incoming message, as text */
  onMessage(handler: (text: string) => void): void;
  /** an incoming message over the size limit was discarded (stdio: answer it with -32600, with its id when the reader read one) */
  onOversize(handler: (bytes: number, id?: string | number) => void): void;
  onClose(handler: () => void): void;
}
