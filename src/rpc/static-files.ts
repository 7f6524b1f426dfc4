// The web UI's files, served by the same http.Server as the WebSocket endpoint, so one port and
// one origin carry both (the Origin check in ws-upgrade.ts relies on that).
//
// GET/HEAD on any path but /rpc; "/" and directories serve index.html (a directory without the
// trailing "/" is redirected to it). Percent-decoding happens first, then any ".." segment,
// dot-file segment, backslash or NUL is a 404, and the resolved real path (symlinks followed) must
// stay inside the static root: the request path is attacker-controlled (any page can make the
// browser ask for it). Without a static root every HTTP request is 404. Other methods: 405.
// Plain GET /rpc: 426. Every answer carries the security headers (http-headers.ts).
import { createReadStream } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import { extname, isAbsolute, join, relative, sep } from "node:path";
import type { Logger } from "../log/logger.js";
import { SECURITY_HEADERS } from "./http-headers.js";
import { pathnameOf, RPC_PATH } from "./ws-upgrade.js";

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

function contentTypeFor(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
}

/** A short plain-text answer (the status line as body). */
function sendPlain(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  const body = `${status} ${STATUS_CODES[status] ?? ""}\n`;
  res.writeHead(status, {
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    ...SECURITY_HEADERS,
    ...headers,
  });
  res.end(res.req.method === "HEAD" ? undefined : body);
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The http.Server 'request' listener; `staticRoot` is a real path (symlinks resolved) or undefined for none. */
export function staticFilesHandler(staticRoot: string | undefined, log: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
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
      "Cache-Control": "no-cache",
      ...SECURITY_HEADERS,
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

  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err }, "ws server: static request failed");
      if (!res.headersSent) sendPlain(res, 500);
      else res.destroy();
    });
  };
}
