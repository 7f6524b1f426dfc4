// Finding WebSocket clients that are gone without a close (a laptop lid shut, a dropped network):
// every heartbeatMs each client is pinged; one that has not ponged since the previous ping is
// terminate()d. The same tick cuts off clients that stopped reading (see ws-connection.ts).
//
// A tick that comes more than 2 × heartbeatMs after the previous one (our own event loop stalled,
// or the machine was suspended) terminates nobody and only pings again: pongs may be sitting
// unread in the sockets, since timers run before I/O callbacks, and the clients are not to blame.
import { WebSocket } from "ws";
import type { Logger } from "../log/logger.js";
import { tooMuchBuffered, type WsClient } from "./ws-connection.js";

export interface HeartbeatOptions {
  heartbeatMs: number;
  maxBufferedBytes: number;
  log: Logger;
}

/** Starts the heartbeat over `clients` (read at each tick); returns the function that stops it. heartbeatMs 0: none. */
export function startHeartbeat(clients: ReadonlySet<WsClient>, opts: HeartbeatOptions): () => void {
  const { heartbeatMs, maxBufferedBytes, log } = opts;
  if (heartbeatMs <= 0) return () => {};
  let lastTick = Date.now();
  const timer = setInterval(() => {
    const now = Date.now();
    const late = now - lastTick > 2 * heartbeatMs;
    lastTick = now;
    for (const client of clients) {
      const ws = client.ws;
      if (ws.readyState !== WebSocket.OPEN) continue;
      if (!client.alive && !late) {
        log.info({ conn: client.id }, "ws server: no pong since last ping; terminating");
        ws.terminate();
        continue;
      }
      if (tooMuchBuffered(client, maxBufferedBytes, log)) continue;
      client.alive = false;
      try {
        ws.ping();
      } catch (err) {
        log.debug({ err, conn: client.id }, "ws server: ping failed");
      }
    }
  }, heartbeatMs);
  timer.unref();
  return () => clearInterval(timer);
}
