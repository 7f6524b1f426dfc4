// `bin/pith acp` driven by the ACP SDK's own client side (acp.client()) over real pipes. The SDK
// parses every session/update with its schema before our handler sees it, and one that does not
// parse is recorded as a violation: a test ends by asserting there were none. Permission
// requests are answered by a handler the test sets (default: reject).
//
//   const a = await startAcp(t, { home, fake });
//   const s = await a.request("session/new", { cwd, mcpServers: [] });
//   await a.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "hi" }] });
//   a.updates  // every update received, in order
import * as acp from "@agentclientprotocol/sdk";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { LineReader, NO_LINE_LIMIT } from "../../protocol/ndjson-lines.js";
import { updateProblem } from "./acp-schema.js";
import "./fresh-dist.js";
import { BIN, daemonEnv, type DaemonEnvOptions } from "./daemon-client.js";

type Hooks = { after(fn: () => unknown): void };

export interface AcpDaemon {
  proc: ChildProcessWithoutNullStreams;
  /** every session/update, in the order received */
  updates: acp.SessionNotification[];
  /** messages the client side could not accept (schema failures, unknown requests) */
  violations: string[];
  /** stderr of the daemon (logs) */
  stderr(): string;
  /** the raw stdout lines, to check stdout carries ACP messages only */
  stdoutLines: string[];
  /**
   * Lines that are not JSON-RPC, and session/update notifications that are not valid, lossless
   * updates as sent (the SDK client's parse forgives: it drops what it does not know).
   */
  wireProblems(): string[];
  request: acp.ClientContext["request"];
  notify: acp.ClientContext["notify"];
  /** answers session/request_permission (default: reject once) */
  onPermission(handler: (req: acp.RequestPermissionRequest, signal: AbortSignal) => Promise<acp.RequestPermissionResponse> | acp.RequestPermissionResponse): void;
  /** resolves when an update matching `test` has arrived (after index `from`) */
  waitUpdate(test: (u: acp.SessionUpdate) => boolean, what: string, from?: number, timeoutMs?: number): Promise<acp.SessionUpdate>;
  /** updates of one session since index `from` */
  since(from: number, sessionId?: string): acp.SessionUpdate[];
  /** closes stdin and waits for the exit */
  end(): Promise<{ code: number | null; ms: number }>;
}

export interface StartAcpOptions extends DaemonEnvOptions {
  cwd?: string;
  clientCapabilities?: acp.ClientCapabilities;
  args?: string[];
  /** what the client's ndJsonStream reads, made from the agent's stdout (e.g. a reader with a line limit) */
  readStdout?: (stdout: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>;
  /** registers the client's answers to more of pith's requests (fs/*, terminal/*); any other request is a violation */
  handlers?: (app: acp.ClientApp) => void;
}

export async function startAcp(t: Hooks, opts: StartAcpOptions): Promise<AcpDaemon> {
  const proc = spawn(process.execPath, [BIN, "acp", ...(opts.args ?? [])], { cwd: opts.cwd ?? opts.home, env: daemonEnv(opts), stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  t.after(async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill("SIGKILL");
      await exited;
    }
  });
  const updates: acp.SessionNotification[] = [];
  const violations: string[] = [];
  const stdoutLines: string[] = [];
  // the one line reader (bytes, not setEncoding: the SDK reads the same stream and needs its bytes)
  const lines = new LineReader({ line: (text) => stdoutLines.push(text), oversize: () => {} }, NO_LINE_LIMIT);
  proc.stdout.on("data", (chunk: Buffer) => lines.push(chunk));
  let permission: Parameters<AcpDaemon["onPermission"]>[0] = () => ({ outcome: { outcome: "selected", optionId: "reject_once" } });
  const waiters = new Set<() => void>();
  const app = acp
    .client({ name: "pith-acp-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
      for (const w of waiters) w();
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => permission(params, signal));
  opts.handlers?.(app);
  app.onRequest("*", ({ method }) => {
    violations.push(`unexpected request ${method}`);
    throw acp.RequestError.methodNotFound(method);
  });
  const stdout = Readable.toWeb(proc.stdout) as ReadableStream<Uint8Array>;
  const stream = acp.ndJsonStream(Writable.toWeb(proc.stdin) as WritableStream<Uint8Array>, opts.readStdout ? opts.readStdout(stdout) : stdout);
  const connection = app.connect(stream);
  const ctx = connection.agent;
  t.after(() => connection.close());
  await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: opts.clientCapabilities ?? {}, clientInfo: { name: "pith-acp-test", version: "0" } });
  const d: AcpDaemon = {
    proc,
    updates,
    violations,
    stdoutLines,
    wireProblems: () =>
      stdoutLines.flatMap((line) => {
        let msg: { jsonrpc?: string; method?: string; params?: { update?: unknown } };
        try {
          msg = JSON.parse(line);
        } catch {
          return [`not JSON: ${line.slice(0, 200)}`];
        }
        if (msg.jsonrpc !== "2.0") return [`not JSON-RPC: ${line.slice(0, 200)}`];
        if (msg.method !== acp.methods.client.session.update) return [];
        const problem = updateProblem(msg.params?.update);
        return problem ? [`${line.slice(0, 200)}\n${problem}`] : [];
      }),
    stderr: () => stderr,
    request: ctx.request.bind(ctx) as acp.ClientContext["request"],
    notify: ctx.notify.bind(ctx) as acp.ClientContext["notify"],
    onPermission: (handler) => (permission = handler),
    since: (from, sessionId) => updates.slice(from).filter((n) => sessionId === undefined || n.sessionId === sessionId).map((n) => n.update),
    waitUpdate: (test, what, from = 0, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const hit = updates.slice(from).find((n) => test(n.update));
          if (!hit) return;
          cleanup();
          resolve(hit.update);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; got ${updates.slice(from).map((n) => n.update.sessionUpdate).join(", ")}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    end: async () => {
      const t0 = performance.now();
      proc.stdin.end();
      const code = await exited;
      return { code, ms: performance.now() - t0 };
    },
  };
  return d;
}

/** The text of the agent_message_chunk updates in `updates`, joined. */
export function agentText(updates: readonly acp.SessionUpdate[]): string {
  return updates.map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "")).join("");
}
