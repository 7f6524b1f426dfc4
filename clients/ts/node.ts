// Node transports for PithClient: the daemon's stdio (`pith --mode rpc` as a child process, one
// JSON message per line) and a WebSocket to `pith serve` (the `ws` package, token in the
// Authorization header or the pith.bearer.<token> subprotocol).
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { WebSocket, type ClientOptions } from "ws";
import { LineReader, NO_LINE_LIMIT } from "../../protocol/ndjson-lines.js";
import { TransportBase, bearerSubprotocol, rpcUrl, type CloseInfo, type Transport } from "./client.js";

/** The repository's bin/pith, found relative to this module (clients/ts/, or a compiled dist/clients/ts/). */
export const PITH_BIN: string = (() => {
  const candidates = ["../../bin/pith", "../../../bin/pith"].map((rel) => fileURLToPath(new URL(rel, import.meta.url)));
  return candidates.find((p) => existsSync(p)) ?? candidates[0];
})();

// ---- stdio ---------------------------------------------------------------------------------------

export interface StdioOptions {
  /**
   * The program to run. Default: this Node binary running the repository's bin/pith, with
   * `args` after it.
   */
  command?: string;
  /** Default: `["--mode", "rpc"]`. */
  args?: string[];
  cwd?: string;
  /** The child's whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** What to do with the child's stderr (its logs): "pipe" (default; read `child.stderr`), "inherit" or "ignore". */
  stderr?: "pipe" | "inherit" | "ignore";
}

/** A transport over a child process's stdin/stdout. `close()` ends stdin, which makes `pith --mode rpc` exit. */
export class StdioTransport extends TransportBase implements Transport {
  /** the daemon's lines (the same reader the daemon reads its input with); its answers may be long */
  private readonly lines = new LineReader({ line: (text) => this.deliver(text), oversize: () => {} }, NO_LINE_LIMIT);
  /** resolves with the exit code (null when killed by a signal) once the child has exited */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    super();
    child.stdout.on("data", (chunk: Buffer) => this.lines.push(chunk));
    child.stdout.on("end", () => this.lines.end());
    // a child that died leaves writes failing with EPIPE: the exit below reports the close
    child.stdin.on("error", () => {});
    let exitInfo: CloseInfo | undefined;
    let stdoutEnded = false;
    const finish = () => {
      if (exitInfo && stdoutEnded) this.closedWith(exitInfo);
    };
    child.stdout.on("close", () => ((stdoutEnded = true), finish()));
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        resolve({ code, signal });
        exitInfo = { exitCode: code, signal, reason: `pith exited (${signal ?? code})` };
        finish();
      });
      child.on("error", (error) => {
        // failed to spawn (no pid): there will be no exit event
        if (child.pid !== undefined) return;
        resolve({ code: null, signal: null });
        this.closedWith({ error, reason: `could not start ${child.spawnfile}: ${error.message}` });
      });
    });
  }

  send(text: string): void {
    if (this.closing || this.closed || !this.child.stdin.writable) throw new Error("stdio transport is closed");
    this.child.stdin.write(text + "\n");
  }

  /** Ends the child's stdin (the daemon answers what it has read, then exits). Later messages are dropped. */
  close(): void {
    this.closing = true;
    if (!this.child.stdin.writableEnded) this.child.stdin.end();
  }

  /** Sends a signal to the child. */
  kill(signal: NodeJS.Signals = "SIGTERM"): boolean {
    return this.child.kill(signal);
  }
}

/** Spawns `pith --mode rpc` (by default the repository's bin/pith) and talks to it over its pipes. */
export function spawnStdio(options: StdioOptions = {}): StdioTransport {
  const args = options.args ?? ["--mode", "rpc"];
  const [command, argv] = options.command ? [options.command, args] : [process.execPath, [PITH_BIN, ...args]];
  const child = spawn(command, argv, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["pipe", "pipe", options.stderr ?? "pipe"],
  }) as ChildProcessWithoutNullStreams;
  return new StdioTransport(child);
}

// ---- WebSocket -----------------------------------------------------------------------------------

export interface WebSocketOptions {
  /** send the token as the `pith.bearer.<token>` subprotocol (what browsers do) instead of the Authorization header */
  useSubprotocol?: boolean;
  /** more options for the `ws` client (headers are merged) */
  ws?: ClientOptions;
}

/** A transport over a `ws` WebSocket. */
export class NodeWebSocketTransport extends TransportBase implements Transport {
  constructor(readonly socket: WebSocket) {
    super();
    let lastError: Error | undefined;
    socket.on("message", (data, isBinary) => {
      if (!isBinary) this.deliver(Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8"));
    });
    socket.on("error", (err) => (lastError = err));
    socket.on("close", (code, reason) => this.closedWith({ code, reason: reason.toString("utf8"), ...(lastError ? { error: lastError } : {}) }));
  }

  send(text: string): void {
    if (this.socket.readyState !== WebSocket.OPEN) throw new Error("WebSocket is not open");
    this.socket.send(text);
  }

  close(): void {
    this.closing = true;
    if (this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
    else this.socket.close(1000);
  }
}

/**
 * Connects to `pith serve`. `url` is the ws endpoint or what the daemon prints
 * (`http://127.0.0.1:7777` becomes `ws://127.0.0.1:7777/rpc`). Resolves once the connection is
 * open; rejects on a refused handshake (the error names the HTTP status: 401 for a bad token).
 */
export function connectWebSocket(url: string, token: string, options: WebSocketOptions = {}): Promise<NodeWebSocketTransport> {
  const extra = options.ws ?? {};
  const socket = options.useSubprotocol
    ? new WebSocket(rpcUrl(url), [bearerSubprotocol(token)], extra)
    : new WebSocket(rpcUrl(url), { ...extra, headers: { ...extra.headers, Authorization: `Bearer ${token}` } });
  return new Promise((resolve, reject) => {
    const fail = (err: Error) => {
      socket.removeAllListeners();
      socket.on("error", () => {});
      socket.terminate();
      reject(err);
    };
    socket.once("open", () => {
      socket.removeAllListeners();
      resolve(new NodeWebSocketTransport(socket));
    });
    socket.once("unexpected-response", (req, res) => {
      res.resume();
      req.destroy();
      fail(new Error(`WebSocket handshake refused: HTTP ${res.statusCode}`));
    });
    socket.once("error", fail);
  });
}
