// The streamable-HTTP MCP server the tests start in-process: the tools of mcp-server.mjs (defined in
// mcp-tools.mjs) at http://127.0.0.1:PORT/mcp. 2025-era traffic (the client's default) gets stateful
// sessions (Mcp-Session-Id), one SDK transport and server per session; 2026-07-28 traffic goes to the
// SDK's per-request handler. The SDK speaks web-standard Request/Response: node:http is bridged here.
//
// `crash` over HTTP stops the server abruptly (every socket destroyed, sessions lost, nothing
// listening) until restart(), which listens again on the same port, as a server that died and came back.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpServer,
} from "@modelcontextprotocol/server";
import { makeToolServer, type ToolServerShared } from "./mcp-tools.mjs";

export interface McpHttpServerOptions {
  /** requests without `Authorization: Bearer <bearer>` get 401 */
  bearer?: string;
  /** requests without this header (name, exact value) get 403 */
  requireHeader?: [string, string];
  /** NOTES_DIR and CANCEL_LOG of the stdio server */
  notesDir?: string;
  cancelLog?: string;
}

export interface McpHttpServer {
  /** http://127.0.0.1:PORT/mcp */
  readonly url: string;
  /** POSTs seen, refused ones included */
  readonly requests: number;
  /** the headers of every request seen (names in lower case), in order */
  readonly headersSeen: Record<string, string>[];
  close(): Promise<void>;
  /** stops abruptly and listens again on the same port, with no session left */
  restart(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
}

export async function startMcpHttpServer(options: McpHttpServerOptions = {}): Promise<McpHttpServer> {
  const shared: ToolServerShared = { lateAdded: false };
  const sessions = new Map<string, Session>();
  const sockets = new Set<Socket>();
  const headersSeen: Record<string, string>[] = [];
  let requests = 0;

  const factory = () =>
    makeToolServer({
      notesDir: options.notesDir,
      cancelLog: options.cancelLog,
      shared,
      onCrash: () => setImmediate(() => void stopAbruptly()),
      onToolsChanged: () => modern.notify.toolsChanged(),
    });
  const modern = createMcpHandler(factory, { legacy: "reject" });

  async function legacy(request: Request, body: unknown): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const session = sessions.get(id);
      if (!session) return jsonError(404, "unknown session");
      return session.transport.handleRequest(request, { parsedBody: body });
    }
    if (request.method !== "POST" || !isInitializeRequest(body)) return jsonError(400, "no session: initialize first");
    const server = factory();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sid) => void sessions.set(sid, { transport, server }),
      onsessionclosed: (sid) => void sessions.delete(sid),
    });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    headersSeen.push(flatHeaders(req));
    if (req.method === "POST") requests++;
    const refusal = refuse(req, options);
    if (refusal) return send(res, refusal);
    if (new URL(req.url ?? "/", "http://x").pathname !== "/mcp") return send(res, jsonError(404, "not found"));
    const raw = req.method === "POST" ? await readAll(req) : undefined;
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: flatHeaders(req),
      body: raw === undefined ? undefined : new Uint8Array(raw),
    });
    let body: unknown;
    try {
      body = raw && raw.length > 0 ? JSON.parse(raw.toString("utf8")) : undefined;
    } catch {
      return send(res, jsonError(400, "the body is not JSON"));
    }
    const response = (await isLegacyRequest(request, body)) ? await legacy(request, body) : await modern.fetch(request, { parsedBody: body });
    await send(res, response);
  }

  const http = createServer((req, res) => {
    serve(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
      else res.destroy();
    });
  });
  http.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function stopAbruptly(): Promise<void> {
    for (const socket of sockets) socket.destroy();
    const closing = new Promise<void>((resolve) => http.close(() => resolve()));
    const open = [...sessions.values()];
    sessions.clear();
    await Promise.allSettled(open.map((s) => s.server.close()));
    await closing;
  }

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      http.once("error", reject);
      http.listen(port, "127.0.0.1", () => {
        http.off("error", reject);
        resolve((http.address() as AddressInfo).port);
      });
    });
  const port = await listen(0);

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get requests() {
      return requests;
    },
    headersSeen,
    async close() {
      await stopAbruptly();
      await modern.close();
    },
    async restart() {
      if (http.listening) await stopAbruptly();
      await listen(port);
    },
  };
}

function refuse(req: IncomingMessage, options: McpHttpServerOptions): Response | undefined {
  if (options.bearer !== undefined && req.headers.authorization !== `Bearer ${options.bearer}`) {
    return new Response(JSON.stringify({ error: "invalid_token" }), {
      status: 401,
      headers: { "content-type": "application/json", "www-authenticate": 'Bearer error="invalid_token"' },
    });
  }
  if (options.requireHeader) {
    const [name, value] = options.requireHeader;
    if (req.headers[name.toLowerCase()] !== value) return jsonError(403, `missing header ${name}`);
  }
  return undefined;
}

function jsonError(status: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// Streams the response (SSE included) and cancels its body when the client goes away.
async function send(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  } catch {
    res.destroy();
  }
}
