// JSON-RPC over WebSocket (one message per text frame), plus optional static files, on one
// http.Server.
//
// Upgrade (only on path /rpc; any other path gets 404 before upgrading), checked in this order,
// each failure answered with a plain HTTP response on the raw socket, which is then closed:
// - server closing → 503
// - Origin: absent is fine (non-browser clients). Present, it must be http://127.0.0.1:PORT,
//   http://localhost:PORT or http://[::1]:PORT (PORT = the bound port) or one of allowedOrigins
//   (compared case-insensitively, trailing "/" ignored) → else 403.
// - Token: `Authorization: Bearer <token>`, or a Sec-WebSocket-Protocol entry
//   `pith.bearer.<token>` (browsers cannot set headers). Compared in constant time. When the
//   subprotocol entry is what matched, the 101 answer selects exactly that entry (a browser fails
//   the handshake otherwise). Missing or wrong → 401 with `WWW-Authenticate: Bearer`.
// The connection is authenticated before it opens; nothing is checked after.
//
// Frames:
// - Text frames carry one message each. Binary frames are refused: the connection is closed with
//   1003 (unsupported data) — JSON-RPC is text, and a client sending binary is confused.
// - A message over maxPayload: ws closes that connection with 1009; other connections are not
//   affected. onOversize never fires on a WebSocket connection (the connection is gone, there is
//   no one to answer with -32600).
// - Invalid UTF-8 in a text frame: ws closes with 1007.
// - The server sends nothing before the client does (except heartbeat pings, which are control
//   frames, no messages).
//
// Heartbeat: every heartbeatMs each client is pinged; one that has not ponged since the previous
// ping is terminate()d. heartbeatMs 0 disables it. A tick that comes more than 2 × heartbeatMs
// after the previous one (our own event loop stalled) terminates nobody and only pings again.
//
// Slow readers: before each send, and at each heartbeat, a connection whose ws.bufferedAmount is
// over maxBufferedBytes (the client stopped reading) is terminate()d and the message dropped. A
// single message is never refused for its own size, only for the backlog in front of it.
//
// Connection.send() on a socket that is not open is a no-op. Connection.close(code, reason)
// starts the closing handshake (an invalid close code falls back to terminate()); ws gives the
// peer closeTimeoutMs to answer before it drops the socket.
//
// Static files (staticDir): GET/HEAD on any path but /rpc; "/" and directories serve
// index.html; percent-decoding happens first, then any ".." segment, dot-file segment,
// backslash or NUL is a 404, and the resolved real path (symlinks followed) must stay inside
// staticDir. Without staticDir every HTTP request is 404. Other methods: 405. Plain GET /rpc: 426.
import { createReadStream, realpathSync, statSync } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, relative, isAbsolute, sep } from "node:path";
import type { Duplex } from "node:stream";
import pino from "pino";
import { WebSocket, WebSocketServer, type RawData } from "ws";
import type { Logger } from "../log/logger.js";
import { tokensEqual, validToken } from "./auth.js";
import type { Connection } from "./transport.js";

export const RPC_PATH = "/rpc";
export const BEARER_PROTOCOL_PREFIX = "pith.bearer.";
export const DEFAULT_MAX_PAYLOAD = 64 * 1024 * 1024;
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
export const DEFAULT_HEARTBEAT_MS = 30_000;
export const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;

export interface WsConnectionInfo {
  remoteAddress: string;
  origin?: string;
}

export interface WsServerOptions {
  /** default 127.0.0.1 */
  host?: string;
  /** 0 (default) = any free port */
  port?: number;
  /** the bearer token; must satisfy validToken() */
  token: string;
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
  logger?: Logger;
  onConnection(conn: Connection, info: WsConnectionInfo): void;
}

export interface WsServer {
  /** http://host:port */
  readonly url: string;
  readonly port: number;
  /** closes every connection with 1001 and the HTTP server */
  close(): Promise<void>;
}

interface Client {
  ws: WebSocket;
  id: string;
  alive: boolean;
}

let nextId = 0;

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".wasm": "application/wasm",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
};

export function contentTypeFor(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
}

function normalizeOrigin(o: string): string {
  return o.trim().toLowerCase().replace(/\/+$/, "");
}

function pathnameOf(url: string | undefined): string {
  const u = url ?? "/";
  const q = u.search(/[?#]/);
  return q === -1 ? u : u.slice(0, q);
}

/** Writes a complete HTTP response on an upgrade socket and closes it. */
function rejectUpgrade(socket: Duplex, status: number, extraHeaders: Record<string, string> = {}): void {
  const reason = STATUS_CODES[status] ?? "Error";
  const body = `${status} ${reason}\n`;
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    "Connection: close",
    "Content-Type: text/plain; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(extraHeaders).map(([k, v]) => `${k}: ${v}`),
  ];
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.once("finish", () => socket.destroy());
  socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
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

export async function startWsServer(opts: WsServerOptions): Promise<WsServer> {
  const host = opts.host ?? "127.0.0.1";
  const token = opts.token;
  if (!validToken(token)) throw new Error("startWsServer: token must be non-empty base64url ([A-Za-z0-9_-])");
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

  const clients = new Set<Client>();
  const selectedProtocol = new WeakMap<IncomingMessage, string>();
  let allowedOrigins = new Set<string>();
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

  const server = createServer();
  server.on("request", (req, res) => {
    handleHttp(req, res).catch((err: unknown) => {
      log.error({ err }, "ws server: static request failed");
      if (!res.headersSent) sendPlain(res, 500);
      else res.destroy();
    });
  });
  server.on("upgrade", onUpgrade);
  server.on("error", (err) => log.error({ err }, "ws server: http server error"));

  // ---- upgrade ------------------------------------------------------------------------------

  function authenticate(req: IncomingMessage): { ok: false } | { ok: true; protocol?: string } {
    let ok = false;
    let protocol: string | undefined;
    const header = req.headers.authorization;
    if (typeof header === "string") {
      const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
      if (m && tokensEqual(m[1], token)) ok = true;
    }
    const proto = req.headers["sec-websocket-protocol"];
    if (typeof proto === "string") {
      for (const raw of proto.split(",")) {
        const entry = raw.trim();
        if (entry.startsWith(BEARER_PROTOCOL_PREFIX) && tokensEqual(entry.slice(BEARER_PROTOCOL_PREFIX.length), token)) {
          ok = true;
          protocol = entry;
          break;
        }
      }
    }
    return ok ? { ok, protocol } : { ok: false };
  }

  function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const onSocketError = (err: Error) => {
      log.debug({ err }, "ws server: upgrade socket error");
      socket.destroy();
    };
    socket.on("error", onSocketError);
    const remoteAddress = req.socket.remoteAddress ?? "";
    const path = pathnameOf(req.url);
    const reject = (status: number, why: string, headers?: Record<string, string>) => {
      log.info({ remoteAddress, path, status }, `ws server: upgrade refused: ${why}`);
      rejectUpgrade(socket, status, headers);
    };
    if (closing) return reject(503, "server closing");
    if (path !== RPC_PATH) return reject(404, "not the rpc path");
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(normalizeOrigin(origin))) {
      return reject(403, `origin not allowed: ${origin}`);
    }
    const auth = authenticate(req);
    if (!auth.ok) return reject(401, "missing or wrong token", { "WWW-Authenticate": "Bearer" });
    if (auth.protocol !== undefined) selectedProtocol.set(req, auth.protocol);
    wss.handleUpgrade(req, socket, head, (ws) => {
      socket.removeListener("error", onSocketError);
      accept(ws, { remoteAddress, ...(origin !== undefined ? { origin } : {}) });
    });
  }

  // ---- connections --------------------------------------------------------------------------

  function tooMuchBuffered(client: Client): boolean {
    if (client.ws.bufferedAmount <= maxBufferedBytes) return false;
    log.warn(
      { conn: client.id, bufferedAmount: client.ws.bufferedAmount, maxBufferedBytes },
      "ws server: client is not reading; cutting it off",
    );
    client.ws.terminate();
    return true;
  }

  function accept(ws: WebSocket, info: WsConnectionInfo): void {
    const client: Client = { ws, id: `ws-${++nextId}`, alive: true };
    const messageHandlers: Array<(text: string) => void> = [];
    const closeHandlers: Array<() => void> = [];
    const pending: string[] = [];
    let closed = false;
    clients.add(client);
    log.info({ conn: client.id, ...info, protocol: ws.protocol ? "bearer-subprotocol" : "bearer-header" }, "ws server: connected");

    const call = <A extends unknown[]>(fn: (...args: A) => void, ...args: A): void => {
      try {
        fn(...args);
      } catch (err) {
        log.error({ err, conn: client.id }, "ws server: handler threw");
      }
    };
    const flushPending = () => {
      while (pending.length > 0) {
        const text = pending.shift()!;
        for (const h of messageHandlers.slice()) call(h, text);
      }
    };

    ws.on("pong", () => {
      client.alive = true;
    });
    ws.on("error", (err) => {
      log.debug({ err, conn: client.id }, "ws server: connection error");
    });
    ws.on("message", (data, isBinary) => {
      if (isBinary) {
        log.info({ conn: client.id }, "ws server: binary frame refused");
        conn.close(1003, "binary frames are not supported; send JSON-RPC as text");
        return;
      }
      const text = rawToText(data);
      if (messageHandlers.length === 0 || pending.length > 0) {
        pending.push(text);
        return;
      }
      for (const h of messageHandlers.slice()) call(h, text);
    });
    ws.on("close", (code, reason) => {
      clients.delete(client);
      closed = true;
      log.info({ conn: client.id, code, reason: reason.toString() }, "ws server: disconnected");
      for (const h of closeHandlers.splice(0)) call(h);
    });

    const conn: Connection = {
      id: client.id,
      kind: "websocket",
      send(message: string): void {
        if (ws.readyState !== WebSocket.OPEN) return;
        if (tooMuchBuffered(client)) return;
        ws.send(message, (err) => {
          if (err) log.debug({ err, conn: client.id }, "ws server: send failed");
        });
      },
      close(code = 1000, reason = ""): void {
        if (ws.readyState === WebSocket.CLOSING || ws.readyState === WebSocket.CLOSED) return;
        try {
          ws.close(code, clampReason(reason));
        } catch (err) {
          log.debug({ err, conn: client.id, code }, "ws server: close failed; terminating");
          ws.terminate();
        }
      },
      onMessage(handler) {
        messageHandlers.push(handler);
        if (messageHandlers.length === 1 && pending.length > 0) queueMicrotask(flushPending);
      },
      onOversize() {
        // ws closes the connection with 1009 itself; see the header comment
      },
      onClose(handler) {
        if (closed) queueMicrotask(() => call(handler));
        else closeHandlers.push(handler);
      },
    };

    try {
      opts.onConnection(conn, info);
    } catch (err) {
      log.error({ err, conn: client.id }, "ws server: onConnection threw; closing");
      conn.close(1011, "internal error");
    }
  }

  let heartbeat: NodeJS.Timeout | undefined;
  if (heartbeatMs > 0) {
    let lastTick = Date.now();
    heartbeat = setInterval(() => {
      // After a stall of our own event loop (or a suspended machine), pongs may be sitting
      // unread in the sockets: timers run before I/O callbacks. Do not blame the clients for
      // that; just ping again.
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
        if (tooMuchBuffered(client)) continue;
        client.alive = false;
        try {
          ws.ping();
        } catch (err) {
          log.debug({ err, conn: client.id }, "ws server: ping failed");
        }
      }
    }, heartbeatMs);
    heartbeat.unref();
  }

  // ---- static files -------------------------------------------------------------------------

  function sendPlain(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
    const body = `${status} ${STATUS_CODES[status] ?? ""}\n`;
    res.writeHead(status, {
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
      "X-Content-Type-Options": "nosniff",
      ...headers,
    });
    res.end(res.req.method === "HEAD" ? undefined : body);
  }

  function inside(root: string, p: string): boolean {
    const rel = relative(root, p);
    return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
  }

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawPath = pathnameOf(req.url);
    if (rawPath === RPC_PATH) return sendPlain(res, 426, { Upgrade: "websocket", Connection: "Upgrade" });
    if (req.method !== "GET" && req.method !== "HEAD") return sendPlain(res, 405, { Allow: "GET, HEAD" });
    if (staticRoot === undefined) return sendPlain(res, 404);
    let decoded: string;
    try {
      decoded = decodeURIComponent(rawPath);
    } catch {
      return sendPlain(res, 400);
    }
    if (!decoded.startsWith("/") || decoded.includes("\0") || decoded.includes("\\")) return sendPlain(res, 404);
    const segments = decoded.split("/").filter((s) => s !== "");
    if (segments.some((s) => s.startsWith("."))) return sendPlain(res, 404); // "..", ".", dot-files
    let file = join(staticRoot, ...segments);
    if (!inside(staticRoot, file)) return sendPlain(res, 404);
    let st = await stat(file).catch(() => undefined);
    if (st?.isDirectory()) {
      if (!rawPath.endsWith("/")) {
        const q = (req.url ?? "").slice(rawPath.length);
        // one leading slash only: "//host/dir" must not become a protocol-relative redirect
        return sendPlain(res, 301, { Location: `/${rawPath.replace(/^\/+/, "")}/${q}` });
      }
      file = join(file, "index.html");
      st = await stat(file).catch(() => undefined);
    }
    if (!st?.isFile()) return sendPlain(res, 404);
    const real = await realpath(file).catch(() => undefined);
    if (real === undefined || !inside(staticRoot, real)) return sendPlain(res, 404);
    res.writeHead(200, {
      "Content-Type": contentTypeFor(real),
      "Content-Length": st.size,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "no-cache",
    });
    if (req.method === "HEAD") {
      res.end();
      return;
    }
    const stream = createReadStream(real);
    stream.on("error", (err) => {
      log.warn({ err, path: real }, "ws server: static file read failed");
      res.destroy();
    });
    stream.pipe(res);
  }

  // ---- listen / close -----------------------------------------------------------------------

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen(opts.port ?? 0, host, () => {
      server.removeListener("error", onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  allowedOrigins = new Set(
    [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`, ...(opts.allowedOrigins ?? [])].map(
      normalizeOrigin,
    ),
  );
  if (port === 80) for (const h of ["127.0.0.1", "localhost", "[::1]"]) allowedOrigins.add(`http://${h}`);
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  log.info({ url }, "ws server: listening");

  function close(): Promise<void> {
    closePromise ??= (async () => {
      closing = true;
      if (heartbeat) clearInterval(heartbeat);
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
