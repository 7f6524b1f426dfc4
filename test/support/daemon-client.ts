// The daemon as clients see it: bin/pith (the compiled CLI in dist/) started as a real process,
// spoken to over stdio (`--mode rpc`, `serve --stdio`) or WebSocket (`serve`), with a JSON-RPC
// peer that records everything it receives, checks every event and result against the protocol's
// zod schemas, and lets a test wait for events with a deadline (never for ever).
//
//   const d = await startRpcDaemon(t, { home, fake });        // --mode rpc
//   await d.peer.initialize();
//   const opened = await d.peer.request("createSession", { cwd });
//   const run = await d.peer.runPrompt(opened.sessionId, "hi"); // events up to agent_end
//
//   const s = await startServeDaemon(t, { home, fake, stdio: true });
//   const ws = await s.connect(t);                            // an authenticated WebSocket peer
//
// Every process started here is killed (SIGKILL) and waited for in the test's after hook if it is
// still alive, and every WebSocket is terminated, so nothing outlives a test file.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WebSocket, type ClientOptions } from "ws";
import { events as eventSchemas, isEventName, isMethodName, methods as methodSchemas } from "../../protocol/index.js";
import type { FakeAnthropic } from "./fake-anthropic.js";
import { repoRoot } from "./tmp.js";

export const BIN = join(repoRoot, "bin", "pith");

type Hooks = { after(fn: () => unknown): void };
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Cleanups registered outside a test (in a file's before hook), run by the file's after hook in
 * reverse order: `const cleanup = new Cleanup(); after(() => cleanup.run());`.
 */
export class Cleanup {
  private fns: Array<() => unknown> = [];
  after(fn: () => unknown): void {
    this.fns.push(fn);
  }
  async run(): Promise<void> {
    for (const fn of this.fns.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        process.stderr.write(`[daemon tests] cleanup failed: ${(err as Error).message}\n`);
      }
    }
  }
}

// ---- dist/ freshness -------------------------------------------------------------------------

/** src/ and protocol/ files newer than their compiled dist/ file (bin/pith runs dist/). */
export function staleDist(): string[] {
  const out: string[] = [];
  for (const dir of ["src", "protocol"]) {
    const root = join(repoRoot, dir);
    for (const f of readdirSync(root, { recursive: true, encoding: "utf8" })) {
      if (!f.endsWith(".ts") || f.endsWith(".d.ts")) continue;
      const built = join(repoRoot, "dist", dir, f.replace(/\.ts$/, ".js"));
      if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(root, f)).mtimeMs) out.push(`${dir}/${f}`);
    }
  }
  return out;
}

let warned = false;
/** Says once per file (as a test diagnostic and on stderr) when dist/ is older than src/. */
export function checkDist(t: { diagnostic(msg: string): void }): void {
  if (warned) return;
  warned = true;
  const stale = staleDist();
  if (stale.length > 0) {
    const msg = `dist/ is older than ${stale.slice(0, 5).join(", ")}${stale.length > 5 ? ` (+${stale.length - 5})` : ""}: the daemon under test is the old build (run npm run build)`;
    t.diagnostic(msg);
    process.stderr.write(`[daemon tests] ${msg}\n`);
  }
}

// ---- environment -----------------------------------------------------------------------------

export interface DaemonEnvOptions {
  home: string;
  /** the fake Messages API; without it the daemon runs the offline scripted demo */
  fake?: FakeAnthropic;
  env?: Record<string, string | undefined>;
}

/** A clean environment for bin/pith: no test-runner hooks, PITH_HOME and the API set. */
export function daemonEnv(opts: DaemonEnvOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ["NODE_OPTIONS", "NODE_TEST_CONTEXT", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "PITH_TOKEN"]) delete env[key];
  env.PITH_HOME = opts.home;
  env.PITH_LOG_LEVEL = "warn";
  if (opts.fake) {
    env.ANTHROPIC_API_KEY = "test-key";
    env.ANTHROPIC_BASE_URL = opts.fake.url;
  }
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Writes $PITH_HOME/settings.json. */
export function writeSettings(home: string, settings: object): void {
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "settings.json"), JSON.stringify(settings, null, 2));
}

/** The small model the compaction tests use: threshold = 40000 - 16384 = 23616 tokens. */
export const SMALL_MODEL = { id: "small-model", contextWindow: 40_000, maxOutputTokens: 4_000 };
/**
 * Settings for the flow tests: the small model is known, and keepRecentTokens is small so that a
 * short session has something before the cut (a big user message then starts the kept part).
 */
export const FLOW_SETTINGS = { models: [SMALL_MODEL], compaction: { keepRecentTokens: 200 } };

/** A user message of about 1000 estimated tokens (words, so the estimate is stable). */
export function bigText(tag: string, words = 700): string {
  return `${tag}: ` + Array.from({ length: words }, (_, i) => `word${i % 97}`).join(" ");
}

/** Polls `test` every 10 ms until it returns something other than undefined; rejects after timeoutMs. */
export async function poll<T>(test: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = test();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

// ---- the JSON-RPC peer ------------------------------------------------------------------------

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`${code}: ${message}`);
  }
}

export interface Ev {
  type: string;
  sessionId: string;
  seq: number;
  [key: string]: Json;
}

interface Waiter {
  check(): boolean;
  fail(err: Error): void;
}

let nextPeerId = 0;

/**
 * One client connection. Outgoing text goes through `sendText`; incoming text is handed to
 * `receive`. Server requests (requestPermission, beforeCompact) are answered by `onServerRequest`
 * (default: the safe answers, deny / default).
 */
export class RpcPeer {
  readonly label: string;
  /** every message received, in order (parsed) */
  readonly received: Json[] = [];
  /** notifications as events: the params plus `type` */
  readonly events: Ev[] = [];
  /** error answers with id null (parse errors, batches, oversize lines) */
  readonly nullIdErrors: Json[] = [];
  /** schema problems in events and results: each test checks this is empty */
  readonly violations: string[] = [];
  /** lines that were not JSON (the server must never send one) */
  readonly garbage: string[] = [];
  onServerRequest: (method: string, params: Json) => Json = (method) => (method === "requestPermission" ? { outcome: "deny" } : { action: "default" });
  private readonly pending = new Map<number | string, { resolve(msg: Json): void; method: string }>();
  private waiters = new Set<Waiter>();
  private nextId = 1;
  private closedWith: Error | null = null;

  constructor(
    private readonly sendText: (text: string) => void,
    label = "peer",
  ) {
    this.label = `${label}#${++nextPeerId}`;
  }

  /** Feeds one incoming message (a line or a frame). */
  receive(text: string): void {
    let msg: Json;
    try {
      msg = JSON.parse(text);
    } catch {
      this.garbage.push(text);
      return;
    }
    this.received.push(msg);
    if (msg && typeof msg === "object" && typeof msg.method === "string") {
      if ("id" in msg) {
        const result = this.onServerRequest(msg.method, msg.params);
        this.sendText(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }));
      } else {
        const ev = { ...(msg.params ?? {}), type: msg.method } as Ev;
        this.events.push(ev);
        const method: string = msg.method;
        if (!isEventName(method)) this.violations.push(`unknown event ${method}`);
        else {
          const r = eventSchemas[method].safeParse(msg.params);
          if (!r.success) this.violations.push(`event ${msg.method} seq ${ev.seq}: ${r.error.message.slice(0, 500)}`);
        }
      }
    } else if (msg && typeof msg === "object" && ("result" in msg || "error" in msg)) {
      if (msg.id === null) this.nullIdErrors.push(msg);
      const p = msg.id !== null && msg.id !== undefined ? this.pending.get(msg.id) : undefined;
      if (p) {
        this.pending.delete(msg.id);
        p.resolve(msg);
      }
    }
    this.poke();
  }

  /** The connection ended: every wait in progress fails. */
  closed(why: string): void {
    if (this.closedWith) return;
    this.closedWith = new Error(`${this.label}: connection closed (${why})`);
    for (const [, p] of this.pending) p.resolve({ jsonrpc: "2.0", id: null, error: { code: 0, message: this.closedWith.message } });
    this.pending.clear();
    for (const w of this.waiters) w.fail(this.closedWith);
    this.waiters.clear();
  }

  get isClosed(): boolean {
    return this.closedWith !== null;
  }

  private poke(): void {
    for (const w of [...this.waiters]) if (w.check()) this.waiters.delete(w);
  }

  /** Resolves when `test()` returns a value other than undefined; rejects after timeoutMs. */
  until<T>(test: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout;
      const w: Waiter = {
        check: () => {
          const v = test();
          if (v === undefined) return false;
          clearTimeout(timer);
          resolve(v);
          return true;
        },
        fail: (err) => {
          clearTimeout(timer);
          reject(new Error(`${err.message} while waiting for ${what}`));
        },
      };
      if (w.check()) return;
      if (this.closedWith) return w.fail(this.closedWith);
      timer = setTimeout(() => {
        this.waiters.delete(w);
        const tail = this.events.slice(-8).map((e) => `${e.seq}:${e.type}`).join(" ");
        reject(new Error(`${this.label}: timed out after ${timeoutMs} ms waiting for ${what} (last events: ${tail})`));
      }, timeoutMs);
      this.waiters.add(w);
    });
  }

  sendRaw(text: string): void {
    this.sendText(text);
  }

  send(msg: object): void {
    this.sendText(JSON.stringify(msg));
  }

  /** Sends a request and resolves with the whole response (result or error). */
  call(method: string, params?: unknown, timeoutMs = 15_000): Promise<Json> {
    const id = this.nextId++;
    const response = new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.label}: no answer to ${method} (id ${id}) within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        method,
        resolve: (msg) => {
          clearTimeout(timer);
          resolve(msg);
        },
      });
    });
    if (this.closedWith) return Promise.reject(this.closedWith);
    this.send(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });
    return response.then((msg) => {
      if (msg.result !== undefined && isMethodName(method)) {
        const r = (methodSchemas[method].result as { safeParse(v: unknown): { success: boolean; error?: { message: string } } }).safeParse(msg.result);
        if (!r.success) this.violations.push(`result of ${method}: ${r.error?.message.slice(0, 500)}`);
      }
      return msg;
    });
  }

  /** Sends a request; resolves with its result, rejects with an RpcError. */
  async request(method: string, params?: unknown, timeoutMs?: number): Promise<Json> {
    const msg = await this.call(method, params, timeoutMs);
    if (msg.error) throw new RpcError(msg.error.code, msg.error.message, msg.error.data);
    return msg.result;
  }

  /** Sends a request that must fail; resolves with its error object. */
  async expectError(method: string, params: unknown, code: number): Promise<{ code: number; message: string; data?: Json }> {
    const msg = await this.call(method, params);
    if (!msg.error) throw new Error(`${method} ${JSON.stringify(params)?.slice(0, 200)}: expected error ${code}, got result ${JSON.stringify(msg.result)?.slice(0, 300)}`);
    if (msg.error.code !== code) throw new Error(`${method} ${JSON.stringify(params)?.slice(0, 200)}: expected error ${code}, got ${JSON.stringify(msg.error).slice(0, 500)}`);
    return msg.error;
  }

  initialize(capabilities?: object): Promise<Json> {
    return this.request("initialize", { protocolVersion: 1, clientInfo: { name: "daemon-tests", version: "0" }, ...(capabilities ? { capabilities } : {}) });
  }

  /** The index the next event will get in `events` (to wait for events after this point). */
  mark(): number {
    return this.events.length;
  }

  /** The first event from index `from` that matches. */
  waitEvent(pred: (e: Ev) => boolean, what: string, from = 0, timeoutMs?: number): Promise<Ev> {
    return this.until(() => this.events.slice(from).find(pred), what, timeoutMs);
  }

  /** The next null-id error answer after `from` of them were seen. */
  waitNullIdError(from: number, timeoutMs?: number): Promise<Json> {
    return this.until(() => this.nullIdErrors[from], "an error answer with id null", timeoutMs);
  }

  /** A session's events from index `from` on. */
  sessionEvents(sessionId: string, from = 0): Ev[] {
    return this.events.slice(from).filter((e) => e.sessionId === sessionId);
  }

  /** Waits for the run's agent_end and returns the session's events from `from` to it. */
  async runEvents(sessionId: string, runId: string, from = 0, timeoutMs?: number): Promise<Ev[]> {
    const end = await this.waitEvent((e) => e.sessionId === sessionId && e.type === "agent_end" && e.runId === runId, `agent_end of run ${runId}`, from, timeoutMs);
    const all = this.sessionEvents(sessionId, from);
    return all.slice(0, all.indexOf(end) + 1);
  }

  /** Sends a prompt and waits for the run to end; returns its runId and the session's events from before the prompt to agent_end. */
  async runPrompt(sessionId: string, text: string, timeoutMs?: number): Promise<{ runId: string; events: Ev[] }> {
    const from = this.mark();
    const { runId } = await this.request("prompt", { sessionId, text });
    return { runId, events: await this.runEvents(sessionId, runId, from, timeoutMs) };
  }
}

// ---- processes ---------------------------------------------------------------------------------

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class DaemonProcess {
  readonly proc: ChildProcess;
  readonly exited: Promise<Exit>;
  stderr = "";
  exit: Exit | null = null;

  constructor(t: Hooks, args: string[], opts: DaemonEnvOptions & { cwd: string }) {
    this.proc = spawn(BIN, args, { cwd: opts.cwd, env: daemonEnv(opts), stdio: ["pipe", "pipe", "pipe"] });
    this.proc.stderr!.setEncoding("utf8").on("data", (d: string) => (this.stderr += d));
    this.proc.stdin!.on("error", () => {}); // writing to a daemon that is gone
    this.exited = new Promise((resolve) => {
      this.proc.on("close", (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
    t.after(async () => {
      if (this.exit === null) {
        this.proc.kill("SIGKILL");
        await this.exited;
      }
    });
  }

  get pid(): number {
    return this.proc.pid!;
  }

  /** Waits for the exit, at most timeoutMs (then rejects, the process still running). */
  async waitExit(timeoutMs = 10_000): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`daemon ${this.pid} did not exit within ${timeoutMs} ms; stderr:\n${this.stderr.slice(-2000)}`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL and wait. */
  async kill9(): Promise<Exit> {
    if (this.exit === null) this.proc.kill("SIGKILL");
    return this.exited;
  }
}

/** Splits a stream into lines for a peer. */
function pipeLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void, onEnd: () => void): void {
  let partial = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop()!;
    for (const p of parts) if (p.length > 0) onLine(p);
  });
  stream.on("end", () => {
    if (partial) onLine(partial);
    onEnd();
  });
}

export interface RpcDaemon extends DaemonProcess {
  /** the stdio client */
  peer: RpcPeer;
  /** ends the daemon's stdin */
  endStdin(): void;
}

function attachStdio(d: DaemonProcess, label: string): RpcPeer {
  const peer = new RpcPeer((text) => {
    if (d.proc.stdin!.writable) d.proc.stdin!.write(text + "\n");
  }, label);
  pipeLines(d.proc.stdout!, (line) => peer.receive(line), () => peer.closed("stdout ended"));
  return peer;
}

/** `bin/pith --mode rpc` in `cwd` (default: PITH_HOME). */
export function startRpcDaemon(t: Hooks, opts: DaemonEnvOptions & { cwd?: string; args?: string[] }): RpcDaemon {
  const d = new DaemonProcess(t, ["--mode", "rpc", ...(opts.args ?? [])], { ...opts, cwd: opts.cwd ?? opts.home }) as RpcDaemon;
  d.peer = attachStdio(d, "stdio");
  d.endStdin = () => d.proc.stdin!.end();
  return d;
}

export interface WsPeer extends RpcPeer {
  ws: WebSocket;
  /** the close frame's code and reason, once closed */
  whenClosed: Promise<{ code: number; reason: string }>;
}

export interface ServeDaemon extends DaemonProcess {
  port: number;
  token: string;
  /** ws://127.0.0.1:PORT/rpc */
  wsUrl: string;
  /** the stdio client when started with stdio: true */
  peer?: RpcPeer;
  /** an authenticated, open WebSocket peer (Authorization header unless options say otherwise) */
  connect(t: Hooks, options?: { protocols?: string[]; headers?: Record<string, string>; auth?: boolean; maxPayload?: number }): Promise<WsPeer>;
  /** the HTTP status of a refused upgrade */
  refused(t: Hooks, options?: { protocols?: string[]; headers?: Record<string, string> }): Promise<number>;
}

export const TEST_TOKEN = "daemon-test-token_0123456789";

/** `bin/pith serve --port 0 --token T [--stdio]`; resolves once it listens. */
export async function startServeDaemon(t: Hooks, opts: DaemonEnvOptions & { cwd?: string; stdio?: boolean; token?: string; args?: string[] }): Promise<ServeDaemon> {
  const token = opts.token ?? TEST_TOKEN;
  const args = ["serve", "--port", "0", "--token", token, ...(opts.stdio ? ["--stdio"] : []), ...(opts.args ?? [])];
  const d = new DaemonProcess(t, args, { ...opts, cwd: opts.cwd ?? opts.home }) as ServeDaemon;
  if (opts.stdio) d.peer = attachStdio(d, "stdio");
  else d.proc.stdout!.resume();
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within 10 s; stderr:\n${d.stderr}`)), 10_000);
    const onData = () => {
      const m = /pith serving on http:\/\/[^\s:]+:(\d+)/.exec(d.stderr);
      if (m) {
        clearTimeout(timer);
        d.proc.stderr!.off("data", onData);
        resolve(Number(m[1]));
      }
    };
    d.proc.stderr!.on("data", onData);
    void d.exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${JSON.stringify(e)}) before listening; stderr:\n${d.stderr}`));
    });
    onData();
  });
  d.port = port;
  d.token = token;
  d.wsUrl = `ws://127.0.0.1:${port}/rpc`;
  d.connect = (tt, o = {}) => {
    const headers = { ...(o.auth === false ? {} : { Authorization: `Bearer ${token}` }), ...o.headers };
    const ws = new WebSocket(d.wsUrl, o.protocols ?? [], { headers, maxPayload: o.maxPayload ?? 256 * 1024 * 1024 } as ClientOptions);
    ws.on("error", () => {});
    tt.after(() => ws.terminate());
    const peer = new RpcPeer((text) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(text);
    }, "ws") as WsPeer;
    peer.ws = ws;
    peer.whenClosed = new Promise((resolve) =>
      ws.on("close", (code, reason) => {
        peer.closed(`close ${code}`);
        resolve({ code, reason: reason.toString() });
      }),
    );
    ws.on("message", (data, isBinary) => peer.receive(isBinary ? `<binary ${String(data)}>` : String(data)));
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(peer));
      ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
      ws.once("error", reject);
    });
  };
  d.refused = (tt, o = {}) => {
    const ws = new WebSocket(d.wsUrl, o.protocols ?? [], { headers: o.headers ?? {} });
    ws.on("error", () => {});
    tt.after(() => ws.terminate());
    return new Promise((resolve, reject) => {
      ws.once("open", () => reject(new Error("the upgrade unexpectedly succeeded")));
      ws.once("unexpected-response", (req, res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
        req.destroy();
      });
    });
  };
  return d;
}

/** Runs `bin/pith <args>` to its end (killed after timeoutMs). */
export function runPith(args: string[], opts: DaemonEnvOptions & { cwd: string; timeoutMs?: number }): Promise<Exit & { stdout: string; stderr: string; ms: number }> {
  const start = performance.now();
  const child = spawn(BIN, args, { cwd: opts.cwd, env: daemonEnv(opts), stdio: ["ignore", "pipe", "pipe"], timeout: opts.timeoutMs ?? 20_000, killSignal: "SIGKILL" });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, ms: performance.now() - start }));
  });
}

// ---- checks on what a run produced -------------------------------------------------------------

/** Event types with runs of message_update / tool_execution_update / compaction_update collapsed to one `name+`. */
export function shape(events: readonly Ev[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    const name = e.type === "message_update" || e.type === "tool_execution_update" || e.type === "compaction_update" ? `${e.type}+` : e.type;
    if (out.at(-1) === name && name.endsWith("+")) continue;
    out.push(name);
  }
  return out;
}

/** Problems with seq numbering: every event after the first is the previous seq + 1. */
export function seqProblems(events: readonly Ev[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < events.length; i++) {
    if (events[i].seq !== events[i - 1].seq + 1) out.push(`${events[i - 1].type} seq ${events[i - 1].seq} then ${events[i].type} seq ${events[i].seq}`);
  }
  return out;
}

/** Tool calls without a result and results without a call. */
export function orphanCalls(messages: readonly Json[]): string[] {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const b of m.content ?? []) if (b.type === "toolCall") calls.add(b.id);
    if (m.role === "toolResult") results.add(m.toolCallId);
  }
  return [...[...calls].filter((c) => !results.has(c)).map((c) => `call without result: ${c}`), ...[...results].filter((r) => !calls.has(r)).map((r) => `result without call: ${r}`)];
}

/** The text of a message's content. */
export function textOf(m: Json): string {
  if (typeof m?.content === "string") return m.content;
  return (m?.content ?? []).map((b: Json) => (b.type === "text" ? b.text : "")).join("");
}

/** Whether a process is alive whose command line contains `needle` (to find a leaked tool child). */
export function processWithArg(needle: string): number | undefined {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ");
      if (cmd.includes(needle)) return Number(name);
    } catch {
      /* gone */
    }
  }
  return undefined;
}

