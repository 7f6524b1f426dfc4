// A small HTTP server on 127.0.0.1 that answers fixed routes with JSON, for the discovery tests:
// it plays vLLM, OpenRouter, LM Studio, llama.cpp or Ollama from recorded bodies, and can hang,
// fail or redirect on a route. Every request is recorded with its headers.
//
//   const server = await startJsonServer({ "GET /v1/models": { body: VLLM_MODELS } });
//   server.requests[0].headers.authorization
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface Route {
  status?: number;
  /** JSON-encoded unless `raw` */
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  /** send nothing, not even headers, until the client goes away */
  hang?: boolean;
  /** send the headers and the first half of the body, then nothing */
  hangBody?: boolean;
  /** a function of the request body, for POST routes that answer per model */
  answer?: (body: Record<string, any>, query: URLSearchParams) => Route;
}

interface JsonRequestRecord {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Record<string, any>;
}

export interface JsonServer {
  readonly url: string;
  readonly requests: JsonRequestRecord[];
  setRoute(key: string, route: Route): void;
  close(): Promise<void>;
}

/** Routes are keyed "METHOD /path" (query ignored); anything else is a 404 with an empty body. */
export async function startJsonServer(routes: Record<string, Route> = {}): Promise<JsonServer> {
  const table = new Map(Object.entries(routes));
  const requests: JsonRequestRecord[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Record<string, any> = {};
    try {
      body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, any>) : {};
    } catch {
      // recorded as {}
    }
    const url = new URL(req.url ?? "/", "http://x");
    requests.push({ method: req.method ?? "", path: url.pathname, query: url.searchParams, headers: req.headers, body });
    let route = table.get(`${req.method} ${url.pathname}`);
    if (route?.answer) route = route.answer(body, url.searchParams);
    if (!route) return void res.writeHead(404, { "content-type": "text/plain" }).end("404 page not found");
    if (route.hang) return;
    const text = route.raw ?? JSON.stringify(route.body ?? {});
    res.writeHead(route.status ?? 200, { "content-type": route.raw === undefined ? "application/json" : "text/plain", ...route.headers });
    if (route.hangBody) return void res.write(text.slice(0, text.length >> 1));
    res.end(text);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    setRoute: (key, route) => void table.set(key, route),
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
