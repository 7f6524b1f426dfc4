// The daemon as clients see it: bin/pith (the compiled CLI in dist/) started as a real process,
// spoken to over stdio (`--mode rpc`, `serve --stdio`) or WebSocket (`serve`), through RpcPeer
// (rpc-peer.ts): the clients/ts client, typed by protocol/, validating every event and result
// against the protocol's zod schemas, recording everything it receives, and letting a test wait
// for events with a deadline (never for ever).
//
//   const d = await startRpcDaemon(t, { home, fake });        // --mode rpc
//   await d.peer.initialize();
//   const opened = await d.peer.request("createSession", { cwd });
//   const run = await d.peer.runPrompt(opened.sessionId, "hi"); // events up to agent_end
//
//   const s = await startServeDaemon(t, { home, fake, stdio: true });
//   const ws = await s.connect(t);                            // an authenticated WebSocket peer
//
// Importing this module makes dist/ match the sources first (fresh-dist.ts). Every process
// started here is killed (SIGKILL) and waited for in the test's after hook if it is still alive,
// and every WebSocket is terminated, so nothing outlives a test file.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WebSocket, type ClientOptions } from "ws";
import { NodeWebSocketTransport, StdioTransport } from "../../clients/ts/node.js";
import type { AgentMessage, EventName } from "../../protocol/index.js";
import type { FakeAnthropic } from "./fake-anthropic.js";
import { builtByRunner, distFreshness, staleDist } from "./fresh-dist.js";
import { RpcPeer, type Ev, type EvOf } from "./rpc-peer.js";
import { BIN, runBin } from "./user-run.js";
export { isEventMessage, RpcError, RpcPeer, type ErrorMessage, type Ev, type EvOf, type ResultMessage, type WireMessage } from "./rpc-peer.js";

export { BIN } from "./user-run.js";

type Hooks = { after(fn: () => unknown): void };

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

let told = false;
/**
 * Once per file: says (as a test diagnostic) when dist/ was rebuilt for this file, and fails when
 * it went stale since (a source edited during the run), so a test never runs an old build silently.
 */
export function checkDist(t: { diagnostic(msg: string): void }): void {
  const stale = staleDist();
  if (stale.length > 0) throw new Error(`dist/ is older than ${stale.slice(0, 5).join(", ")}${stale.length > 5 ? ` (+${stale.length - 5})` : ""}: a source changed during the run; run the tests again`);
  if (told) return;
  told = true;
  if (distFreshness.dist.length > 0 && !builtByRunner) t.diagnostic(`dist/ was rebuilt before these tests (it was older than ${distFreshness.dist.slice(0, 5).join(", ")})`);
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
  for (const key of ["NODE_OPTIONS", "NODE_TEST_CONTEXT", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL", "PITH_TOKEN", "PITH_STORE", "PITH_CLUSTER_TOKEN", "PITH_TLS_CA"]) delete env[key];
  env.PITH_HOME = opts.home;
  env.PITH_LOG_LEVEL = "warn";
  // the offline demo model without its reading pace (a test of the pace sets it back)
  env.PITH_DEMO_PACE_MS = "0";
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
// transcript framing: these flows tell the summarizer's requests by their having no tools (summary-framing.test.ts covers the conversation framing)
export const FLOW_SETTINGS = { models: [SMALL_MODEL], compaction: { keepRecentTokens: 200, summaryFraming: "transcript" as const } };

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

// ---- processes ---------------------------------------------------------------------------------

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Who runs the daemon, and from where (as-user.ts: another user, from a copy that user can read). */
export interface DaemonAs {
  /** run as this user (the test must be root); its supplementary groups are dropped */
  user?: { uid: number; gid: number };
  /** the pith executable (default: this checkout's bin/pith) */
  bin?: string;
  /** more descriptors the daemon inherits: its fd number -> an open descriptor of the test's */
  passFds?: Record<number, number>;
}

/** stdin, stdout, stderr as pipes, then `passFds` at their numbers (nothing open in between). */
function daemonStdio(passFds: Record<number, number> = {}): ("pipe" | "ignore" | number)[] {
  const stdio: ("pipe" | "ignore" | number)[] = ["pipe", "pipe", "pipe"];
  for (const [at, fd] of Object.entries(passFds)) {
    while (stdio.length <= Number(at)) stdio.push("ignore");
    stdio[Number(at)] = fd;
  }
  return stdio;
}

export class DaemonProcess {
  readonly proc: ChildProcess;
  readonly exited: Promise<Exit>;
  stderr = "";
  exit: Exit | null = null;

  constructor(t: Hooks, args: string[], opts: DaemonEnvOptions & DaemonAs & { cwd: string }) {
    const as = opts.user ? { uid: opts.user.uid, gid: opts.user.gid } : {};
    this.proc = spawn(opts.bin ?? BIN, args, { cwd: opts.cwd, env: daemonEnv(opts), stdio: daemonStdio(opts.passFds), ...as });
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

/** A peer over a child's stdin/stdout (clients/ts StdioTransport: one message per line). */
export function peerOverChild(proc: ChildProcess, label: string): RpcPeer {
  return new RpcPeer(new StdioTransport(proc as ChildProcessWithoutNullStreams), label);
}

export interface RpcDaemon extends DaemonProcess {
  /** the stdio client */
  peer: RpcPeer;
  /** ends the daemon's stdin */
  endStdin(): void;
}

/** `bin/pith --mode rpc` in `cwd` (default: PITH_HOME). */
export function startRpcDaemon(t: Hooks, opts: DaemonEnvOptions & DaemonAs & { cwd?: string; args?: string[] }): RpcDaemon {
  const d = new DaemonProcess(t, ["--mode", "rpc", ...(opts.args ?? [])], { ...opts, cwd: opts.cwd ?? opts.home }) as RpcDaemon;
  d.peer = peerOverChild(d.proc, "stdio");
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
  /** ws://127.0.0.1:PORT/rpc (wss:// when it serves TLS) */
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
export async function startServeDaemon(t: Hooks, opts: DaemonEnvOptions & { cwd?: string; stdio?: boolean; token?: string; args?: string[]; ca?: Buffer }): Promise<ServeDaemon> {
  const token = opts.token ?? TEST_TOKEN;
  const args = ["serve", "--port", "0", "--token", token, ...(opts.stdio ? ["--stdio"] : []), ...(opts.args ?? [])];
  const d = new DaemonProcess(t, args, { ...opts, cwd: opts.cwd ?? opts.home }) as ServeDaemon;
  if (opts.stdio) d.peer = peerOverChild(d.proc, "stdio");
  else d.proc.stdout!.resume();
  let secure = false;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within 10 s; stderr:\n${d.stderr}`)), 10_000);
    const onData = () => {
      const m = /pith serving on http(s?):\/\/[^\s:]+:(\d+)/.exec(d.stderr);
      if (m) {
        clearTimeout(timer);
        d.proc.stderr!.off("data", onData);
        secure = m[1] === "s";
        resolve(Number(m[2]));
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
  d.wsUrl = `${secure ? "wss" : "ws"}://127.0.0.1:${port}/rpc`;
  const tlsOptions = opts.ca ? { ca: opts.ca } : {};
  d.connect = (tt, o = {}) => {
    const headers = { ...(o.auth === false ? {} : { Authorization: `Bearer ${token}` }), ...o.headers };
    const ws = new WebSocket(d.wsUrl, o.protocols ?? [], { headers, maxPayload: o.maxPayload ?? 256 * 1024 * 1024, ...tlsOptions } as ClientOptions);
    ws.on("error", () => {});
    tt.after(() => ws.terminate());
    // the transport (and peer) exist before the socket opens, so no message can come unheard
    const peer = new RpcPeer(new NodeWebSocketTransport(ws), "ws") as WsPeer;
    peer.ws = ws;
    // the client's transport skips binary frames; the daemon must never send one
    ws.on("message", (data, isBinary) => isBinary && peer.garbage.push(`<binary ${String(data)}>`));
    peer.whenClosed = new Promise((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(peer));
      ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
      ws.once("error", reject);
    });
  };
  d.refused = (tt, o = {}) => {
    const ws = new WebSocket(d.wsUrl, o.protocols ?? [], { headers: o.headers ?? {}, ...tlsOptions });
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
export async function runPith(args: string[], opts: DaemonEnvOptions & { cwd: string; timeoutMs?: number }): Promise<Exit & { stdout: string; stderr: string; ms: number }> {
  const { status, ...rest } = await runBin(args, { cwd: opts.cwd, env: daemonEnv(opts), timeoutMs: opts.timeoutMs ?? 20_000 });
  return { code: status, ...rest };
}

// ---- checks on what a run produced -------------------------------------------------------------

/** The events of one type, typed as that event. */
export function byType<E extends EventName>(events: readonly Ev[], type: E): EvOf<E>[] {
  return events.filter((e): e is EvOf<E> => e.type === type);
}

/** An event as the type it must be: throws (naming what it is instead) when it is another one, or missing. */
export function asEvent<E extends EventName>(e: Ev | undefined, type: E): EvOf<E> {
  if (e?.type !== type) throw new Error(`expected a ${type} event, got ${e ? `${e.type} (seq ${e.seq})` : "none"}`);
  return e as EvOf<E>;
}

/** A run's agent_end: the last of the events runEvents / runPrompt return. */
export function agentEnd(events: readonly Ev[]): EvOf<"agent_end"> {
  return asEvent(events.at(-1), "agent_end");
}

/** A message as the role it must have: throws when it has another one, or is missing. */
export function asMessage<R extends AgentMessage["role"]>(m: AgentMessage | undefined, role: R): Extract<AgentMessage, { role: R }> {
  if (m?.role !== role) throw new Error(`expected a ${role} message, got ${m ? m.role : "none"}`);
  return m as Extract<AgentMessage, { role: R }>;
}

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
export function orphanCalls(messages: readonly AgentMessage[]): string[] {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const b of m.content) if (b.type === "toolCall") calls.add(b.id);
    if (m.role === "toolResult") results.add(m.toolCallId);
  }
  return [...[...calls].filter((c) => !results.has(c)).map((c) => `call without result: ${c}`), ...[...results].filter((r) => !calls.has(r)).map((r) => `result without call: ${r}`)];
}

/** The text of a message's content. */
export function textOf(m: object | null | undefined): string {
  const content = (m as { content?: unknown } | null | undefined)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b: { type?: unknown; text?: unknown }) => (b.type === "text" && typeof b.text === "string" ? b.text : "")).join("");
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
