// JSON-RPC over WebSocket (one message per text frame), plus optional static files, on one
// http.Server. This file puts the parts together and owns the server's life (listen, close);
// each job is its own file:
// - ws-upgrade.ts     who may connect: path, Origin and token checks on the HTTP upgrade
// - ws-pre-auth.ts    how many connections may be unauthenticated, and for how long
// - ws-auth-failures.ts  addresses that sent wrong tokens too often are refused for a while
// - ws-connection.ts  an accepted socket as a Connection (on the shared connection core), slow readers
// - ws-frames.ts      text frames in and out, binary frames refused, close reasons
// - ws-heartbeat.ts   pings, and terminating clients that stopped answering them
// - static-files.ts   the web UI's files on the other paths
//
// With `tls` (a certificate and its key) the same port serves https:// and wss:// only; a plain
// http:// or ws:// client fails the TLS handshake.
//
// close(): no new upgrades (503), every connection gets a 1001 close and closeTimeoutMs to answer
// it, then the remaining sockets are dropped and the HTTP server closes.
import { realpathSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerOptions } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import pino from "pino";
import { WebSocket, WebSocketServer } from "ws";
import type { Logger } from "../log/logger.js";
import { validToken } from "./auth.js";
import { staticFilesHandler } from "./static-files.js";
import type { Connection } from "./transport.js";
import { AuthFailures, type AuthFailureLimits } from "./ws-auth-failures.js";
import { wsConnection, type WsClient } from "./ws-connection.js";
import { startHeartbeat } from "./ws-heartbeat.js";
import { PreAuthSockets, type PreAuthLimits } from "./ws-pre-auth.js";
import { allowedOriginsFor, upgradeHandler, type UpgradeInfo } from "./ws-upgrade.js";

const DEFAULT_MAX_PAYLOAD = 64 * 1024 * 1024;
const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
const DEFAULT_HEARTBEAT_MS = 30_000;
const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;

// Node's own bounds on a connection that is sending a request (they never fire on one that sends
// nothing: ws-pre-auth.ts closes those). The check runs every second instead of every 30 s.
const HTTP_TIMEOUTS: ServerOptions = { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1_000 };

export type WsConnectionInfo = UpgradeInfo;

export interface WsServerOptions {
  /** default 127.0.0.1 */
  host?: string;
  /** 0 (default) = any free port */
  port?: number;
  /** the bearer token; must satisfy validToken() */
  token: string;
  /** nodes sharing a PostgreSQL store link with this one (must satisfy validToken()) */
  clusterToken?: string;
  /** extra allowed Origin values, e.g. "http://example.test:5173" */
  allowedOrigins?: string[];
  /** largest accepted message in bytes; default 64 MiB */
  maxPayload?: number;
  /** serve files from here for GET requests on other paths */
  staticDir?: string;
  /** ping interval; default 30 s; 0 disables the heartbeat */
  heartbeatMs?: number;
  /** cut a client off when this much is waiting to be sent to it; default 64 MiB */
  maxBufferedBytes?: number;
  /** how long a closing handshake may take before the socket is dropped; default 2 s */
  closeTimeoutMs?: number;
  /** serve https:// and wss:// with this certificate chain and key (PEM), instead of http:// and ws:// */
  tls?: { cert: Buffer; key: Buffer };
  /** limits on connections that have not authenticated (ws-pre-auth.ts) */
  preAuth?: PreAuthLimits;
  /** when an address that sends wrong tokens is refused (ws-auth-failures.ts) */
  authFailures?: AuthFailureLimits;
  logger?: Logger;
  onConnection(conn: Connection, info: WsConnectionInfo): void;
}

export interface WsServer {
  /** http://host:port (https:// with tls) */
  readonly url: string;
  readonly port: number;
  /** closes every connection with 1001 and the HTTP server */
  close(): Promise<void>;
}

export async function startWsServer(opts: WsServerOptions): Promise<WsServer> {
  const host = opts.host ?? "127.0.0.1";
  const token = opts.token;
  if (!validToken(token)) throw new Error("startWsServer: token must be non-empty base64url ([A-Za-z0-9_-])");
  if (opts.clusterToken !== undefined && !validToken(opts.clusterToken)) throw new Error("startWsServer: the cluster token must be non-empty base64url ([A-Za-z0-9_-])");
  const maxPayload = opts.maxPayload ?? DEFAULT_MAX_PAYLOAD;
  if (!Number.isInteger(maxPayload) || maxPayload < 1 || maxPayload > 0x7fffffff) {
    throw new RangeError(`startWsServer: maxPayload must be an integer in [1, 2^31), got ${maxPayload}`);
  }
  const heartbeatMs = opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const maxBufferedBytes = opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  const closeTimeoutMs = opts.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
  const log: Logger = opts.logger ?? pino({ level: "silent" });
  const staticRoot = opts.staticDir !== undefined ? realpathSync(opts.staticDir) : undefined;
  if (staticRoot !== undefined && !statSync(staticRoot).isDirectory()) {
    throw new Error(`startWsServer: staticDir is not a directory: ${opts.staticDir}`);
  }

  const clients = new Set<WsClient>();
  const selectedProtocol = new WeakMap<IncomingMessage, string>();
  let allowedOrigins: ReadonlySet<string> = new Set<string>();
  let closing = false;
  let closePromise: Promise<void> | undefined;

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload,
    perMessageDeflate: false,
    clientTracking: false,
    handleProtocols: (_protocols, req) => selectedProtocol.get(req) ?? false,
    // not in @types/ws, but honoured by ws 8 for the sockets it creates
    ...({ closeTimeout: closeTimeoutMs } as object),
  });

  function accept(ws: WebSocket, info: WsConnectionInfo): void {
    const { client, conn } = wsConnection(ws, { log, maxBufferedBytes, onGone: (c) => clients.delete(c) });
    clients.add(client);
    log.info({ conn: client.id, ...info, protocol: ws.protocol ? "bearer-subprotocol" : "bearer-header" }, "ws server: connected");
    try {
      opts.onConnection(conn, info);
    } catch (err) {
      log.error({ err, conn: client.id }, "ws server: onConnection threw; closing");
      conn.close(1011, "internal error");
    }
  }

  const scheme = opts.tls ? "https" : "http";
  const server: Server = opts.tls ? createTlsServer({ ...HTTP_TIMEOUTS, cert: opts.tls.cert, key: opts.tls.key }) : createServer(HTTP_TIMEOUTS);
  const preAuth = new PreAuthSockets(opts.preAuth ?? {}, log);
  const failures = new AuthFailures(opts.authFailures);
  // 'connection' is the raw TCP socket, before any TLS handshake: counted from its first moment
  server.on("connection", preAuth.track);
  server.on("request", (req: IncomingMessage) => preAuth.requested(req.socket));
  server.on("request", staticFilesHandler(staticRoot, log));
  server.on("upgrade", (req: IncomingMessage) => preAuth.requested(req.socket));
  server.on(
    "upgrade",
    upgradeHandler({
      token,
      clusterToken: opts.clusterToken,
      log,
      wss,
      selectedProtocol,
      closing: () => closing,
      allowedOrigins: () => allowedOrigins,
      failures,
      authenticated: (socket) => preAuth.authenticated(socket as Socket),
      accept,
    }),
  );
  // a TLS handshake that fails (a plain http:// client, a bad certificate) only concerns that client
  server.on("tlsClientError", (err: Error, socket: Duplex) => {
    log.debug({ err }, "ws server: TLS handshake failed");
    socket.destroy();
  });
  server.on("error", (err) => log.error({ err }, "ws server: http server error"));
  const stopHeartbeat = startHeartbeat(clients, { heartbeatMs, maxBufferedBytes, log });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen(opts.port ?? 0, host, () => {
      server.removeListener("error", onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  allowedOrigins = allowedOriginsFor(port, opts.allowedOrigins, scheme);
  const url = `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}`;
  log.info({ url }, "ws server: listening");

  function close(): Promise<void> {
    closePromise ??= (async () => {
      closing = true;
      stopHeartbeat();
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      const clientsClosed = [...clients].map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.ws.readyState === WebSocket.CLOSED) resolve();
            else c.ws.once("close", () => resolve());
          }),
      );
      for (const c of clients) {
        try {
          c.ws.close(1001, "server shutting down");
        } catch {
          c.ws.terminate();
        }
      }
      preAuth.closeAll();
      server.closeIdleConnections();
      await Promise.all(clientsClosed); // bounded by closeTimeoutMs
      server.closeAllConnections();
      wss.close();
      await serverClosed;
      log.info({ url }, "ws server: closed");
    })();
    return closePromise;
  }

  return { url, port, close };
}
