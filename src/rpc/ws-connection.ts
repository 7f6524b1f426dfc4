// One accepted WebSocket as a Connection (src/rpc/transport.ts): frames in and out through
// ws-frames.ts, the queue-until-handled / close-once rules of the shared connection core
// (protocol/connection-core.ts, the same as the stdio transport's), and the cut-off of clients
// that stop reading.
//
// Slow readers: before each send (and at each heartbeat, see ws-heartbeat.ts), a connection
// whose ws.bufferedAmount is over maxBufferedBytes (the client stopped reading) is terminate()d
// and the message dropped. A single message is never refused for its own size, only for the
// backlog in front of it. Without this a client that never reads would make the daemon hold
// every event of every session it follows.
//
// send() on a socket that is not open is a no-op. close(code, reason) starts the closing
// handshake; messages that arrive after it are dropped. The server sends nothing before the
// client does (heartbeat pings are control frames, not messages).
import { WebSocket } from "ws";
import { ConnectionCore } from "../../protocol/connection-core.js";
import type { Logger } from "../log/logger.js";
import type { Connection } from "./transport.js";
import { BINARY_REFUSED, closeSocket, readFrames, writeFrame } from "./ws-frames.js";

/** What the server keeps per open socket (the heartbeat walks these). */
export interface WsClient {
  readonly ws: WebSocket;
  readonly id: string;
  /** ponged since the last ping */
  alive: boolean;
}

export interface WsConnectionOptions {
  log: Logger;
  maxBufferedBytes: number;
  /** the socket closed (the server forgets the client) */
  onGone(client: WsClient, code: number, reason: string): void;
}

let nextId = 0;

/** Cuts a client off when more than maxBufferedBytes wait to be sent to it; true if it did. */
export function tooMuchBuffered(client: WsClient, maxBufferedBytes: number, log: Logger): boolean {
  if (client.ws.bufferedAmount <= maxBufferedBytes) return false;
  log.warn({ conn: client.id, bufferedAmount: client.ws.bufferedAmount, maxBufferedBytes }, "ws server: client is not reading; cutting it off");
  client.ws.terminate();
  return true;
}

export function wsConnection(ws: WebSocket, opts: WsConnectionOptions): { client: WsClient; conn: Connection } {
  const { log, maxBufferedBytes } = opts;
  const client: WsClient = { ws, id: `ws-${++nextId}`, alive: true };
  const core = new ConnectionCore({ onHandlerError: (err) => log.error({ err, conn: client.id }, "ws server: handler threw") });

  const conn: Connection = {
    id: client.id,
    kind: "websocket",
    send(message: string): void {
      if (ws.readyState !== WebSocket.OPEN || tooMuchBuffered(client, maxBufferedBytes, log)) return;
      writeFrame(ws, message, log, client.id);
    },
    close(code = 1000, reason = ""): void {
      core.stopReceiving();
      closeSocket(ws, code, reason, log, client.id);
    },
    onMessage: (handler) => core.onMessage(handler),
    onOversize() {
      // ws closes the connection with 1009 itself; see ws-frames.ts
    },
    onClose: (handler) => core.onClose(handler),
  };

  ws.on("pong", () => {
    client.alive = true;
  });
  ws.on("error", (err) => {
    log.debug({ err, conn: client.id }, "ws server: connection error");
  });
  readFrames(ws, {
    text: (text) => core.receive(text),
    binary() {
      log.info({ conn: client.id }, "ws server: binary frame refused");
      conn.close(BINARY_REFUSED.code, BINARY_REFUSED.reason);
    },
  });
  ws.on("close", (code, reason) => {
    const why = reason.toString();
    opts.onGone(client, code, why);
    log.info({ conn: client.id, code, reason: why }, "ws server: disconnected");
    core.close();
  });
  return { client, conn };
}
