// Who may open a WebSocket: the checks on an HTTP upgrade request, before any WebSocket exists.
//
// Only path /rpc is upgraded. Checked in this order, each failure answered with a plain HTTP
// response on the raw socket, which is then closed:
// - server closing → 503
// - another path → 404
// - Origin: absent is fine (non-browser clients). Present, it must be http://127.0.0.1:PORT,
//   http://localhost:PORT or http://[::1]:PORT (https:// when serving TLS; PORT = the bound port)
//   or one of allowedOrigins
//   (compared case-insensitively, trailing "/" ignored) → else 403. Checked before the token, so
//   a page on a foreign origin learns nothing about the token.
// - An address that failed too often lately (ws-auth-failures.ts) → 429 with Retry-After, its
//   token not looked at.
// - Token: `Authorization: Bearer <token>`, or a Sec-WebSocket-Protocol entry
//   `pith.bearer.<token>` (browsers cannot set headers). Compared in constant time. When the
//   subprotocol entry is what matched, the 101 answer selects exactly that entry (a browser fails
//   the handshake otherwise). Missing or wrong → 401 with `WWW-Authenticate: Bearer`, counted as
//   a failure of the remote address.
// - With a cluster token configured (nodes sharing a PostgreSQL store), that token is accepted
//   too, and the connection is marked as another node's link.
// Each refusal carries the security headers every HTTP answer of the server does (http-headers.ts).
// The connection is authenticated before it opens; nothing is checked after. From then on it no
// longer counts against the limits on unauthenticated connections (ws-pre-auth.ts).
import { STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import type { Logger } from "../log/logger.js";
import { tokensEqual } from "./auth.js";
import { SECURITY_HEADERS } from "./http-headers.js";
import type { AuthFailures } from "./ws-auth-failures.js";

export const RPC_PATH = "/rpc";
const BEARER_PROTOCOL_PREFIX = "pith.bearer.";

export interface UpgradeInfo {
  remoteAddress: string;
  origin?: string;
  /** it authenticated with the cluster token: another pith node's link */
  fromNode?: boolean;
}

function normalizeOrigin(o: string): string {
  return o.trim().toLowerCase().replace(/\/+$/, "");
}

/** The path of a request URL, without query or fragment. */
export function pathnameOf(url: string | undefined): string {
  const u = url ?? "/";
  const q = u.search(/[?#]/);
  return q === -1 ? u : u.slice(0, q);
}

/** The Origin values a browser page served by this server (on `port`) sends, plus the configured extras. */
export function allowedOriginsFor(port: number, extra: readonly string[] = [], scheme: "http" | "https" = "http"): Set<string> {
  const hosts = ["127.0.0.1", "localhost", "[::1]"];
  const origins = new Set([...hosts.map((h) => `${scheme}://${h}:${port}`), ...extra].map(normalizeOrigin));
  // browsers leave the default port out
  if (port === (scheme === "https" ? 443 : 80)) for (const h of hosts) origins.add(`${scheme}://${h}`);
  return origins;
}

/** Whether the request carries the token; `protocol` is the subprotocol entry that did, to select in the 101. */
function authenticate(req: IncomingMessage, token: string): { ok: false } | { ok: true; protocol?: string } {
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

/** Writes a complete HTTP response on an upgrade socket and closes it. */
function rejectUpgrade(socket: Duplex, status: number, extraHeaders: Record<string, string> = {}): void {
  const reason = STATUS_CODES[status] ?? "Error";
  const body = `${status} ${reason}\n`;
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    "Connection: close",
    "Content-Type: text/plain; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries({ ...SECURITY_HEADERS, ...extraHeaders }).map(([k, v]) => `${k}: ${v}`),
  ];
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.once("finish", () => socket.destroy());
  socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
}

export interface UpgradeGate {
  token: string;
  /** the token other nodes of a cluster link with (accepted beside `token`) */
  clusterToken?: string;
  log: Logger;
  /** the WebSocketServer (noServer) that completes accepted upgrades */
  wss: WebSocketServer;
  /** the subprotocol to select per request: the WebSocketServer's handleProtocols reads it */
  selectedProtocol: WeakMap<IncomingMessage, string>;
  /** read at each request: the server is shutting down */
  closing(): boolean;
  /** read at each request: known once the server listens (the port is part of them) */
  allowedOrigins(): ReadonlySet<string>;
  /** failed tokens per remote address */
  failures: AuthFailures;
  /** the socket authenticated (it leaves the unauthenticated connections' limits) */
  authenticated(socket: Duplex): void;
  accept(ws: WebSocket, info: UpgradeInfo): void;
}

/** The http.Server 'upgrade' listener. */
export function upgradeHandler(gate: UpgradeGate): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const { log } = gate;
  return (req, socket, head) => {
    const onSocketError = (err: Error) => {
      log.debug({ err }, "ws server: upgrade socket error");
      socket.destroy();
    };
    socket.on("error", onSocketError);
    const remoteAddress = req.socket.remoteAddress ?? "";
    const path = pathnameOf(req.url);
    const reject = (status: number, why: string, headers?: Record<string, string>) => {
      // a blocked address may be trying thousands of times a second: those refusals are not news
      log[status === 429 ? "debug" : "info"]({ remoteAddress, path, status }, `ws server: upgrade refused: ${why}`);
      rejectUpgrade(socket, status, headers);
    };
    if (gate.closing()) return reject(503, "server closing");
    if (path !== RPC_PATH) return reject(404, "not the rpc path");
    const origin = req.headers.origin;
    if (origin !== undefined && !gate.allowedOrigins().has(normalizeOrigin(origin))) {
      return reject(403, `origin not allowed: ${origin}`);
    }
    const retryAfter = gate.failures.blockedFor(remoteAddress);
    if (retryAfter > 0) return reject(429, "too many failed tokens from this address", { "Retry-After": String(retryAfter) });
    let auth = authenticate(req, gate.token);
    let fromNode = false;
    if (!auth.ok && gate.clusterToken !== undefined) {
      auth = authenticate(req, gate.clusterToken);
      fromNode = auth.ok;
    }
    if (!auth.ok) {
      gate.failures.failed(remoteAddress);
      return reject(401, "missing or wrong token", { "WWW-Authenticate": "Bearer" });
    }
    gate.authenticated(socket);
    if (auth.protocol !== undefined) gate.selectedProtocol.set(req, auth.protocol);
    gate.wss.handleUpgrade(req, socket, head, (ws) => {
      socket.removeListener("error", onSocketError);
      gate.accept(ws, { remoteAddress, ...(origin !== undefined ? { origin } : {}), ...(fromNode ? { fromNode } : {}) });
    });
  };
}
