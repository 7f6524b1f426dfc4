// The daemon modes: `--mode rpc` (JSON-RPC on stdin/stdout), `serve` (WebSocket, optionally
// stdio too, sharing the sessions). Shutdown (stdin EOF in rpc mode, SIGTERM / SIGINT in every
// mode): runs are aborted and stored as aborted, files synced, locks released.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import type { Settings } from "../host/settings.js";
import { SessionHost } from "../host/session-host.js";
import { generateToken, validToken, writeTokenFile } from "../rpc/auth.js";
import { RpcServer } from "../rpc/server.js";
import { stdioConnection } from "../rpc/stdio-transport.js";
import { startWsServer } from "../rpc/ws-server.js";
import { defaultSessionsDir, pithHome } from "../session/paths.js";
import type { StoreConfig } from "./store-config.js";

export interface DaemonOptions {
  log: Logger;
  stdio: boolean;
  serve?: { host: string; port: number; token?: string; allowedOrigins: string[] };
  idleUnloadMs?: number;
  /** settings from command-line flags (see main.ts) */
  flags?: Settings;
  /** the session store (default: files under $PITH_HOME/sessions) */
  store?: StoreConfig;
}

const WEB_DIR = fileURLToPath(new URL("../../../clients/web/dist", import.meta.url));

export function makeHost(log: Logger, idleUnloadMs = 0, flags: Settings = {}): SessionHost {
  return new SessionHost({
    sessionsDir: defaultSessionsDir(),
    logger: log,
    flags,
    apiKey: process.env.ANTHROPIC_API_KEY || undefined,
    baseURL: process.env.ANTHROPIC_BASE_URL || undefined,
    idleUnloadMs,
  });
}

/** Runs until shutdown; resolves with the exit code. */
export async function runDaemon(opts: DaemonOptions): Promise<number> {
  const { log } = opts;
  const host = makeHost(log, opts.serve ? (opts.idleUnloadMs ?? 10 * 60_000) : 0, opts.flags);
  const rpc = new RpcServer(host, log);
  let closeWs: (() => Promise<void>) | undefined;
  let done!: (code: number) => void;
  const finished = new Promise<number>((r) => (done = r));
  let stopping = false;
  let stdio: ReturnType<typeof stdioConnection> | undefined;
  const shutdown = async (why: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    log.info({ why }, "shutting down");
    try {
      await closeWs?.();
      await host.shutdown();
    } catch (err) {
      log.error({ err }, "shutdown failed");
      code = 1;
    }
    if (stdio) {
      // the last events (agent_end of aborted runs) go out before stdin stops keeping us alive
      await stdio.flushed();
      stdio.close();
      process.stdin.destroy();
    }
    done(code);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));

  if (opts.stdio) {
    const conn = (stdio = stdioConnection(process.stdin, process.stdout, { logger: log }));
    rpc.attach(conn);
    // in rpc mode the editor owns the process: its stdin closing ends it
    if (!opts.serve) conn.onClose(() => void shutdown("stdin closed"));
  }
  if (opts.serve) {
    const token = opts.serve.token ?? process.env.PITH_TOKEN ?? generateToken();
    if (!validToken(token)) {
      log.error("the token must be non-empty and use only A-Z a-z 0-9 _ -");
      return 2;
    }
    let ws: Awaited<ReturnType<typeof startWsServer>>;
    try {
      ws = await startWsServer({
        host: opts.serve.host,
        port: opts.serve.port,
        token,
        allowedOrigins: opts.serve.allowedOrigins,
        staticDir: existsSync(WEB_DIR) ? WEB_DIR : undefined,
        logger: log,
        onConnection: (conn) => rpc.attach(conn),
      });
    } catch (err) {
      // a port in use, an address that is not ours: say so, no stack
      const e = err as NodeJS.ErrnoException;
      process.stderr.write(`pith: cannot listen on ${opts.serve.host}:${opts.serve.port}: ${e.code ?? ""} ${e.message}\n`);
      await host.shutdown();
      return 1;
    }
    closeWs = () => ws.close();
    const tokenFile = writeTokenFile(pithHome(), token);
    process.stderr.write(`pith serving on ${ws.url} (WebSocket at /rpc)\n  open: ${ws.url}/#token=${token}\n  token file: ${tokenFile}\n`);
    if (host.offline) process.stderr.write("  no ANTHROPIC_API_KEY: sessions run the offline scripted demo\n");
  }
  return finished;
}
