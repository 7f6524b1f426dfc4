import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import type { Socket } from "node:net";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { WebSocket, type ClientOptions } from "ws";
import { generateToken } from "../../src/rpc/auth.js";
import type { Connection } from "../../src/rpc/transport.js";
import { startWsServer, type WsConnectionInfo, type WsServerOptions } from "../../src/rpc/ws-server.js";
import { tempDir } from "../support/tmp.js";

const TOKEN = generateToken();
const AUTH = { Authorization: `Bearer ${TOKEN}` };

interface Started {
  url: string;
  wsUrl: string;
  port: number;
  close(): Promise<void>;
  conns: Connection[];
  infos: WsConnectionInfo[];
}

/** Starts a server on 127.0.0.1:0 that echoes every message as {"echo": text}. */
async function start(t: TestContext, extra: Partial<WsServerOptions> = {}): Promise<Started> {
  const conns: Connection[] = [];
  const infos: WsConnectionInfo[] = [];
  const server = await startWsServer({
    token: TOKEN,
    onConnection(conn, info) {
      conns.push(conn);
      infos.push(info);
      conn.onMessage((text) => conn.send(JSON.stringify({ echo: text })));
    },
    ...extra,
  });
  t.after(() => server.close());
  return { ...server, url: server.url, port: server.port, close: server.close, wsUrl: `${server.url.replace(/^http/, "ws")}/rpc`, conns, infos };
}

function track(t: TestContext, ws: WebSocket): WebSocket {
  ws.on("error", () => {});
  t.after(() => ws.terminate());
  return ws;
}

function connect(t: TestContext, url: string, protocols: string[] = [], options: ClientOptions = {}): Promise<WebSocket> {
  const ws = track(t, new WebSocket(url, protocols, options));
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(ws));
    ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once("error", reject);
  });
}

/** Resolves with the HTTP status of a refused handshake. */
function refusedWith(
  t: TestContext,
  url: string,
  protocols: string[] = [],
  options: ClientOptions = {},
): Promise<{ status: number; headers: Record<string, unknown> }> {
  const ws = track(t, new WebSocket(url, protocols, options));
  return new Promise((resolve, reject) => {
    ws.once("open", () => reject(new Error("handshake unexpectedly succeeded")));
    ws.once("unexpected-response", (req, res) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
      res.resume();
      req.destroy();
    });
  });
}

const nextMessage = async (ws: WebSocket): Promise<string> => {
  const [data] = (await once(ws, "message")) as [Buffer];
  return data.toString("utf8");
};

const closeOf = async (ws: WebSocket): Promise<number> => {
  if (ws.readyState === WebSocket.CLOSED) throw new Error("already closed");
  const [code] = (await once(ws, "close")) as [number];
  return code;
};

async function roundTrip(ws: WebSocket, text: string): Promise<void> {
  const reply = nextMessage(ws);
  ws.send(text);
  assert.deepEqual(JSON.parse(await reply), { echo: text });
}

function httpGet(port: number, path: string): Promise<{ status: number; type?: string; location?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET", agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers["content-type"],
          location: res.headers.location,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

test("connects with the Bearer header; messages both ways", { timeout: 5000 }, async (t) => {
  const s = await start(t);
  const ws = await connect(t, s.wsUrl, [], { headers: AUTH });
  assert.equal(ws.protocol, "");
  await roundTrip(ws, '{"jsonrpc":"2.0","method":"ping","id":1}');
  await roundTrip(ws, JSON.stringify({ s: "héllo \u2028 𝄞" }));
  assert.equal(s.conns.length, 1);
  assert.equal(s.conns[0].kind, "websocket");
  assert.match(s.conns[0].id, /^ws-\d+$/);
  assert.equal(s.infos[0].remoteAddress, "127.0.0.1");
  assert.equal(s.infos[0].origin, undefined);

  // lowercase scheme works too
  const ws2 = await connect(t, s.wsUrl, [], { headers: { authorization: `bearer ${TOKEN}` } });
  await roundTrip(ws2, "x");
  assert.notEqual(s.conns[0].id, s.conns[1].id);
});

test("connects with the subprotocol entry, which the server selects", { timeout: 5000 }, async (t) => {
  const s = await start(t);
  const entry = `pith.bearer.${TOKEN}`;
  const ws = await connect(t, s.wsUrl, [entry]);
  assert.equal(ws.protocol, entry);
  await roundTrip(ws, "hi");
  // among other offers, exactly the bearer entry is selected
  const ws2 = await connect(t, s.wsUrl, ["pith.v1", entry]);
  assert.equal(ws2.protocol, entry);
});

test("missing or wrong token → 401", { timeout: 5000 }, async (t) => {
  const s = await start(t);
  const none = await refusedWith(t, s.wsUrl);
  assert.equal(none.status, 401);
  assert.equal(none.headers["www-authenticate"], "Bearer");
  assert.equal((await refusedWith(t, s.wsUrl, [], { headers: { Authorization: `Bearer ${TOKEN}x` } })).status, 401);
  assert.equal((await refusedWith(t, s.wsUrl, [], { headers: { Authorization: `Basic ${TOKEN}` } })).status, 401);
  assert.equal((await refusedWith(t, s.wsUrl, [`pith.bearer.${generateToken()}`])).status, 401);
  assert.equal((await refusedWith(t, s.wsUrl, [TOKEN])).status, 401);
  assert.equal(s.conns.length, 0, "no connection ever opened");
});

test("Origin: foreign → 403; the loopback origins on the bound port, allowedOrigins and none are fine", { timeout: 5000 }, async (t) => {
  const s = await start(t, { allowedOrigins: ["https://app.example.test/"] });
  const opts = (origin: string): ClientOptions => ({ headers: AUTH, origin });
  assert.equal((await refusedWith(t, s.wsUrl, [], opts("http://evil.example"))).status, 403);
  assert.equal((await refusedWith(t, s.wsUrl, [], opts(`http://localhost:${s.port + 1}`))).status, 403);
  assert.equal((await refusedWith(t, s.wsUrl, [], opts("null"))).status, 403);
  // 403 even without a token: the origin is checked first
  assert.equal((await refusedWith(t, s.wsUrl, [], { origin: "http://evil.example" })).status, 403);
  for (const origin of [`http://127.0.0.1:${s.port}`, `http://localhost:${s.port}`, `http://[::1]:${s.port}`, "https://app.example.test"]) {
    const ws = await connect(t, s.wsUrl, [], opts(origin));
    await roundTrip(ws, origin);
  }
  assert.equal(s.infos[0].origin, `http://127.0.0.1:${s.port}`);
  const ws = await connect(t, s.wsUrl, [], { headers: AUTH });
  await roundTrip(ws, "no origin");
});

test("upgrade on another path → 404 before upgrading", { timeout: 5000 }, async (t) => {
  const s = await start(t);
  const base = s.url.replace(/^http/, "ws");
  assert.equal((await refusedWith(t, `${base}/`, [], { headers: AUTH })).status, 404);
  assert.equal((await refusedWith(t, `${base}/rpc/x`, [], { headers: AUTH })).status, 404);
  const ws = await connect(t, `${base}/rpc?x=1`, [], { headers: AUTH });
  await roundTrip(ws, "query string is fine");
});

test("the server sends nothing before the client speaks", { timeout: 5000 }, async (t) => {
  const s = await start(t);
  const ws = await connect(t, s.wsUrl, [], { headers: AUTH });
  const seen: string[] = [];
  ws.on("message", () => seen.push("message"));
  ws.on("ping", () => seen.push("ping"));
  ws.on("pong", () => seen.push("pong"));
  await sleep(150);
  assert.deepEqual(seen, []);
});

test("binary frames are refused with 1003", { timeout: 5000 }, async (t) => {
  const s = await start(t);
  const ws = await connect(t, s.wsUrl, [], { headers: AUTH });
  const closed = closeOf(ws);
  ws.send(Buffer.from('{"jsonrpc":"2.0"}'), { binary: true });
  assert.equal(await closed, 1003);
});

test("a frame over maxPayload closes that client with 1009; others keep working", { timeout: 5000 }, async (t) => {
  const s = await start(t, { maxPayload: 1024 });
  const a = await connect(t, s.wsUrl, [], { headers: AUTH });
  const b = await connect(t, s.wsUrl, [], { headers: AUTH });
  await roundTrip(a, "x".repeat(900)); // under the limit (the echo back is not limited)
  const serverSideClosed = new Promise<void>((resolve) => s.conns[0].onClose(resolve));
  const closed = closeOf(a);
  a.send("x".repeat(2000));
  assert.equal(await closed, 1009);
  await serverSideClosed;
  await roundTrip(b, "still here");
  // send() on the closed connection is a no-op
  assert.doesNotThrow(() => s.conns[0].send("gone"));
  assert.doesNotThrow(() => s.conns[0].close());
});

test("heartbeat terminates a client that does not pong; a live one stays", { timeout: 5000 }, async (t) => {
  const s = await start(t, { heartbeatMs: 80 });
  const dead = await connect(t, s.wsUrl, [], { headers: AUTH, autoPong: false });
  const live = await connect(t, s.wsUrl, [], { headers: AUTH });
  let pings = 0;
  live.on("ping", () => pings++);
  const started = Date.now();
  const deadServerSide = new Promise<void>((resolve) => s.conns[0].onClose(resolve));
  assert.equal(await closeOf(dead), 1006); // terminated: no close frame
  await deadServerSide;
  assert.ok(Date.now() - started < 1000);
  await sleep(300);
  assert.equal(live.readyState, WebSocket.OPEN);
  assert.ok(pings >= 3, `pings: ${pings}`);
  await roundTrip(live, "alive");
});

test("a client that stops reading is cut off once bufferedAmount passes maxBufferedBytes", { timeout: 5000 }, async (t) => {
  const chunk = "z".repeat(256 * 1024);
  let serverSideClosed: Promise<void> | undefined;
  const s = await start(t, {
    maxBufferedBytes: 512 * 1024,
    onConnection(conn) {
      serverSideClosed = new Promise((resolve) => conn.onClose(resolve));
      // 32 MiB, far more than the loopback socket buffers hold; sends after the cut are no-ops
      conn.onMessage(() => {
        for (let i = 0; i < 128; i++) conn.send(chunk);
      });
    },
  });
  const ws = await connect(t, s.wsUrl, [], { headers: AUTH });
  const socket = (ws as unknown as { _socket: Socket })._socket; // no public way to stop reading
  socket.pause();
  ws.send("flood");
  assert.ok(serverSideClosed, "onConnection ran before the client saw the 101");
  await serverSideClosed; // cut off by the server, long before the client resumes
  let received = 0;
  ws.on("message", () => received++);
  socket.resume();
  assert.equal(await closeOf(ws), 1006); // terminated, no close frame
  assert.ok(received < 128, `received ${received} of 128 messages`);
  t.diagnostic(`received ${received} of 128 messages before the cut`);
});

test("close() closes every connection with 1001 and stops listening", { timeout: 5000 }, async (t) => {
  const s = await start(t);
  const a = await connect(t, s.wsUrl, [], { headers: AUTH });
  const b = await connect(t, s.wsUrl, [`pith.bearer.${TOKEN}`]);
  const codes = Promise.all([closeOf(a), closeOf(b)]);
  const started = Date.now();
  await s.close();
  assert.deepEqual(await codes, [1001, 1001]);
  assert.ok(Date.now() - started < 1500, "clients answered the close handshake; no timeout");
  await s.close(); // idempotent
  await assert.rejects(connect(t, s.wsUrl, [], { headers: AUTH }), /ECONNREFUSED/);
});

test("static files: index.html at /, content types, 404 for traversal and missing files", { timeout: 5000 }, async (t) => {
  const dir = tempDir(t);
  const root = join(dir, "static");
  mkdirSync(join(root, "sub"), { recursive: true });
  writeFileSync(join(root, "index.html"), "<!doctype html><title>pith</title>");
  writeFileSync(join(root, "app.js"), "console.log(1)");
  writeFileSync(join(root, "style.css"), "body{}");
  writeFileSync(join(root, "sub", "index.html"), "sub");
  writeFileSync(join(root, ".env"), "hidden");
  writeFileSync(join(dir, "secret.txt"), "secret");
  const s = await start(t, { staticDir: root });

  const index = await httpGet(s.port, "/");
  assert.equal(index.status, 200);
  assert.equal(index.type, "text/html; charset=utf-8");
  assert.equal(index.body, "<!doctype html><title>pith</title>");
  assert.equal((await httpGet(s.port, "/index.html?v=1")).body, "<!doctype html><title>pith</title>");
  const js = await httpGet(s.port, "/app.js");
  assert.deepEqual([js.status, js.type, js.body], [200, "text/javascript; charset=utf-8", "console.log(1)"]);
  assert.equal((await httpGet(s.port, "/style.css")).type, "text/css; charset=utf-8");
  assert.equal((await httpGet(s.port, "/sub/")).body, "sub");
  const redirect = await httpGet(s.port, "/sub?a=1");
  assert.deepEqual([redirect.status, redirect.location], [301, "/sub/?a=1"]);
  assert.equal((await httpGet(s.port, "//sub")).location, "/sub/", "never a protocol-relative redirect");

  for (const path of [
    "/missing.html",
    "/../secret.txt",
    "/sub/../../secret.txt",
    "/%2e%2e/secret.txt",
    "/..%2fsecret.txt",
    "/%2e%2e%2fsecret.txt",
    "/..%5csecret.txt",
    "/.env",
    "/app.js%00.html",
  ]) {
    const r = await httpGet(s.port, path);
    assert.equal(r.status, 404, path);
    assert.ok(!r.body.includes("secret"), path);
  }
  assert.equal((await httpGet(s.port, "/%E0%A4%A")).status, 400);
  assert.equal((await httpGet(s.port, "/rpc")).status, 426);
});

test("without staticDir every plain HTTP request is 404", { timeout: 5000 }, async (t) => {
  const s = await start(t);
  assert.equal((await httpGet(s.port, "/")).status, 404);
  assert.equal((await httpGet(s.port, "/index.html")).status, 404);
});

test("unauthenticated connections: past perAddress the oldest is closed, not the new one; a silent one is closed after timeoutMs; an authenticated one is neither", { timeout: 10_000 }, async (t) => {
  const { connect: tcp } = await import("node:net");
  const s = await start(t, { preAuth: { perAddress: 3, overall: 100, timeoutMs: 400 } });
  const authed = await connect(t, s.wsUrl, [], { headers: AUTH });
  const idle: Socket[] = [];
  const closedAt = new Map<Socket, number>();
  const t0 = performance.now();
  for (let i = 0; i < 5; i++) {
    const sock = tcp(s.port, "127.0.0.1");
    sock.on("error", () => {});
    sock.on("close", () => closedAt.set(sock, performance.now() - t0));
    t.after(() => sock.destroy());
    idle.push(sock);
    await once(sock, "connect");
    await sleep(20);
  }
  await sleep(100);
  assert.deepEqual(idle.map((x) => closedAt.has(x)), [true, true, false, false, false], "the two oldest went");
  await sleep(600);
  assert.deepEqual(idle.map((x) => closedAt.has(x)), [true, true, true, true, true], "the silent ones went after timeoutMs");
  assert.ok([...closedAt.values()].slice(2).every((ms) => ms >= 400), `closed at ${[...closedAt.values()].map((v) => v.toFixed(0)).join(", ")} ms`);
  // the authenticated connection counted for none of this
  assert.equal(authed.readyState, WebSocket.OPEN);
  authed.send("still here");
  const [reply] = (await once(authed, "message")) as [Buffer];
  assert.equal(JSON.parse(reply.toString()).echo, "still here");
});

test("authFailures: maxFailures wrong tokens → 429 with Retry-After, even for the right token", { timeout: 10_000 }, async (t) => {
  const s = await start(t, { authFailures: { maxFailures: 3, windowMs: 10_000, blockMs: 2_000 } });
  for (let i = 0; i < 3; i++) assert.equal((await refusedWith(t, s.wsUrl, [], { headers: { Authorization: "Bearer wrong" } })).status, 401);
  const blocked = await refusedWith(t, s.wsUrl, [], { headers: AUTH });
  assert.equal(blocked.status, 429);
  assert.equal(blocked.headers["retry-after"], "2");
});
