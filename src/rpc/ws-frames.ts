// WebSocket frames ⇄ JSON-RPC messages (the framing of the WebSocket transport; `ws` does the
// protocol itself).
//
// - Text frames carry one message each. Binary frames are refused: the connection is closed with
//   1003 (unsupported data) — JSON-RPC is text, and a client sending binary is confused.
// - A message over maxPayload: ws closes that connection with 1009 itself; other connections are
//   not affected. There is no oversize notice on a WebSocket connection (the connection is gone,
//   there is no one to answer with -32600).
// - Invalid UTF-8 in a text frame: ws closes with 1007.
// - Close reasons are cut to the 123 bytes a close frame has room for; an invalid close code falls
//   back to terminate().
import type { Logger } from "../log/logger.js";
import { WebSocket, type RawData } from "ws";

/** the close that answers a binary frame */
export const BINARY_REFUSED = { code: 1003, reason: "binary frames are not supported; send JSON-RPC as text" } as const;

export interface FrameReader {
  /** one text frame: one message */
  text(text: string): void;
  /** a binary frame (refused by the caller) */
  binary(): void;
}

/** Turns the socket's data frames into messages. */
export function readFrames(ws: WebSocket, reader: FrameReader): void {
  ws.on("message", (data, isBinary) => {
    if (isBinary) reader.binary();
    else reader.text(rawToText(data));
  });
}

function rawToText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}

/** ws requires a close reason of at most 123 bytes */
function clampReason(reason: string): string {
  let r = reason;
  while (Buffer.byteLength(r) > 123) r = r.slice(0, -1);
  return r;
}

/** Sends one message as a text frame; a no-op unless the socket is open. */
export function writeFrame(ws: WebSocket, text: string, log: Logger, connId: string): void {
  if (ws.readyState !== WebSocket.OPEN) return;
  ws.send(text, (err) => {
    if (err) log.debug({ err, conn: connId }, "ws server: send failed");
  });
}

/** Starts the closing handshake (once); ws gives the peer closeTimeout to answer before dropping the socket. */
export function closeSocket(ws: WebSocket, code: number, reason: string, log: Logger, connId: string): void {
  if (ws.readyState === WebSocket.CLOSING || ws.readyState === WebSocket.CLOSED) return;
  try {
    ws.close(code, clampReason(reason));
  } catch (err) {
    log.debug({ err, conn: connId, code }, "ws server: close failed; terminating");
    ws.terminate();
  }
}
