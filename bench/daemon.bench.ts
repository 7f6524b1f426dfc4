// Daemon bench: request round trips (getState) over stdio and WebSocket, events per second of a
// long streamed reply from the fake Messages API through the daemon to a client (beside the same
// stream read directly with the SDK), and the daemon's memory with 1,000 idle sessions open.
import Anthropic from "@anthropic-ai/sdk";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import { median, round, table } from "./util.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "pith");
const DELTAS = 20_000;
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);

interface Rpc {
  call(method: string, params?: unknown): Promise<any>;
  onEvent(fn: (method: string, params: any) => void): void;
  close(): void;
}

function lineRpc(send: (text: string) => void): { rpc: Rpc; receive: (text: string) => void } {
  let id = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let listener: (method: string, params: any) => void = () => undefined;
  const rpc: Rpc = {
    call: (method, params) =>
      new Promise((resolve, reject) => {
        const n = ++id;
        pending.set(n, { resolve, reject });
        send(JSON.stringify({ jsonrpc: "2.0", id: n, method, params }));
      }),
    onEvent: (fn) => (listener = fn),
    close: () => undefined,
  };
  const receive = (text: string) => {
    const msg = JSON.parse(text);
    if (msg.id !== undefined && pending.has(msg.id)) {
      const p = pending.get(msg.id)!;
      pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${msg.error.code} ${msg.error.message}`));
      else p.resolve(msg.result);
    } else if (msg.method) listener(msg.method, msg.params);
  };
  return { rpc, receive };
}

function spawnDaemon(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [...(process.env.PITH_BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.PITH_BENCH_PROFILE}`] : []), BIN, ...args], { env: { ...process.env, ...env, PITH_LOG_LEVEL: "error" }, stdio: ["pipe", "pipe", "pipe"] });
}

function stdioRpc(child: ChildProcess): Rpc {
  const { rpc, receive } = lineRpc((text) => child.stdin!.write(text + "\n"));
  let buf = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    buf += d;
    let start = 0;
    let nl: number;
    while ((nl = buf.indexOf("\n", start)) >= 0) {
      if (nl > start) receive(buf.slice(start, nl));
      start = nl + 1;
    }
    buf = buf.slice(start);
  });
  rpc.close = () => child.stdin!.end();
  return rpc;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function wsRpc(port: number, token: string): Promise<Rpc> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/rpc`, { headers: { authorization: `Bearer ${token}` } });
  await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
  const { rpc, receive } = lineRpc((text) => ws.send(text));
  ws.on("message", (data) => receive(String(data)));
  rpc.close = () => ws.close();
  return rpc;
}

async function roundTrips(rpc: Rpc, sessionId: string, n = 2000): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 100; i++) await rpc.call("getState", { sessionId });
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await rpc.call("getState", { sessionId });
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(n / 2)], p99: ms[Math.floor(n * 0.99)] };
}

/** The fake API runs in a process of its own, so neither measurement shares a process with it. */
async function startFakeApi(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "bench", "fake-api-child.ts"), String(DELTAS)], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve) => child.stdout!.once("data", (d) => resolve(String(d).trim())));
  return { url, stop: () => new Promise((r) => (child.once("exit", r), child.kill("SIGTERM"))) };
}

/** The baseline: the same stream read straight from the fake API with the SDK. */
async function directStream(url: string): Promise<number> {
  const client = new Anthropic({ apiKey: "k", baseURL: url, maxRetries: 0, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  const t0 = performance.now();
  let n = 0;
  const stream = client.messages.stream({ model: "claude-sonnet-5-5", max_tokens: 100, messages: [{ role: "user", content: "go" }] });
  for await (const ev of stream) if (ev.type === "content_block_delta") n++;
  const s = (performance.now() - t0) / 1000;
  if (n !== DELTAS) throw new Error(`direct: ${n} deltas`);
  return n / s;
}

async function throughDaemon(rpc: Rpc, sessionId: string): Promise<number> {
  // the daemon may send several provider deltas as one event: count the text, one character each
  let n = 0;
  let events = 0;
  let t0 = 0;
  const done = new Promise<void>((resolve) =>
    rpc.onEvent((method, params) => {
      if (method === "message_update" && params.delta?.type === "text") {
        n += params.delta.text.length;
        events++;
      }
      if (method === "agent_end") resolve();
    }),
  );
  t0 = performance.now();
  await rpc.call("prompt", { sessionId, text: "go" });
  await done;
  const s = (performance.now() - t0) / 1000;
  if (n !== DELTAS) throw new Error(`daemon: ${n} deltas`);
  lastEventCount = events;
  return n / s;
}

let lastEventCount = 0;

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

export async function runDaemonBench(opts: { log?: (line: string) => void } = {}) {
  const log = opts.log ?? ((line: string) => console.log(line));
  const home = mkdtempSync(join(tmpdir(), "pith-daemon-bench-"));
  const cwd = mkdtempSync(join(tmpdir(), "pith-daemon-bench-cwd-"));
  writeFileSync(join(cwd, "notes.md"), "# notes\n");
  const server = await startFakeApi();
  const env = { PITH_HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.url };
  const port = await freePort();
  const token = "benchtoken";
  const daemon = spawnDaemon(["serve", "--stdio", "--port", String(port), "--token", token], env);
  try {
    await new Promise<void>((resolve) => daemon.stderr!.on("data", (d) => String(d).includes("pith serving on") && resolve()));
    const stdio = stdioRpc(daemon);
    await stdio.call("initialize", { protocolVersion: 1, clientInfo: { name: "bench" } });
    const { sessionId } = await stdio.call("createSession", { cwd });
    const ws = await wsRpc(port, token);
    await ws.call("initialize", { protocolVersion: 1, clientInfo: { name: "bench" } });
    await ws.call("subscribe", { sessionId });

    const rtStdio = await roundTrips(stdio, sessionId);
    const rtWs = await roundTrips(ws, sessionId);
    // the stream is measured with one client: a second would double the client-side work here
    ws.close();

    const direct: number[] = [];
    const viaDaemon: number[] = [];
    for (let i = 0; i < 3; i++) {
      direct.push(await directStream(server.url));
      viaDaemon.push(await throughDaemon(stdio, sessionId));
    }
    const directEps = median(direct);
    const daemonEps = median(viaDaemon);
    const overhead = 1 - daemonEps / directEps;

    const rssBefore = rssMiB(daemon.pid!);
    for (let i = 0; i < SESSIONS; i++) await stdio.call("createSession", { cwd });
    const rssAfter = rssMiB(daemon.pid!);
    stdio.close();

    log(table([["request round trip (getState, 2,000)", "p50 ms", "p99 ms"], ["stdio", round(rtStdio.p50, 3), round(rtStdio.p99, 3)], ["WebSocket", round(rtWs.p50, 3), round(rtWs.p99, 3)]]));
    log("");
    log(table([[`streamed reply, ${DELTAS} text deltas (median of 3; the fake API in its own process)`, "events/s"], ["SDK straight from the fake API (baseline)", Math.round(directEps)], ["fake API -> daemon -> stdio client", Math.round(daemonEps)]]));
    log(`daemon overhead: ${round(overhead * 100, 1)}% of the direct stream's rate (target < 10%): ${overhead < 0.1 ? "met" : "MISSED"}; the ${DELTAS} deltas reached the client as ${lastEventCount} message_update events`);
    log(`memory: daemon RSS ${round(rssBefore, 1)} MiB with 1 session, ${round(rssAfter, 1)} MiB with ${SESSIONS + 1} idle sessions (target < 300 MB): ${rssAfter * 1.048576 < 300 ? "met" : "MISSED"}`);
    const figures = {
      bench: "daemon",
      roundTripMs: { stdio: { p50: round(rtStdio.p50, 3), p99: round(rtStdio.p99, 3) }, websocket: { p50: round(rtWs.p50, 3), p99: round(rtWs.p99, 3) } },
      stream: { deltas: DELTAS, clientEvents: lastEventCount, directEventsPerSec: Math.round(directEps), daemonEventsPerSec: Math.round(daemonEps), overhead: round(overhead, 4), directRuns: direct.map(Math.round), daemonRuns: viaDaemon.map(Math.round) },
      memory: { sessions: SESSIONS + 1, rssMiBBefore: round(rssBefore, 1), rssMiBAfter: round(rssAfter, 1) },
    };
    log("");
    log(JSON.stringify(figures));
    return figures;
  } finally {
    daemon.kill("SIGTERM");
    await new Promise((r) => daemon.once("exit", r));
    await server.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}
