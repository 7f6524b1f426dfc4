// The daemon modes: `--mode rpc` (JSON-RPC on stdin/stdout), `serve` (WebSocket, optionally
// stdio too, sharing the sessions). Shutdown (stdin EOF in rpc mode, SIGTERM / SIGINT in every
// mode): runs are aborted and stored as aborted, files synced, locks released.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import type { Settings } from "../host/policy/settings.js";
import { SessionHost } from "../host/session-host.js";
import { checkTokenStrength } from "../rpc/auth.js";
import type { LinkSecurity } from "../rpc/link-security.js";
import { RpcServer } from "../rpc/server.js";
import { stdioConnection } from "../rpc/stdio-transport.js";
import { startWsServer } from "../rpc/ws-server.js";
import { defaultSessionsDir, pithHome } from "../session/paths.js";
import { serveBanner, type TokenOrigin } from "./banner.js";
import { openStore } from "./open-store.js";
import { BadTokenFile, ensureTokenFile } from "./token-file.js";
import type { StoreConfig } from "./store-config.js";
import { loadTlsFiles, type TlsFiles } from "./tls-files.js";
import { printErr } from "./terminal-out.js";

export interface DaemonOptions {
  log: Logger;
  stdio: boolean;
  /**
   * `token`: given by --token, --token-file or PITH_TOKEN (else $PITH_HOME/token, made once and
   * kept); `tls`: the PEM files of `--tls-cert` / `--tls-key`
   */
  serve?: {
    host: string;
    port: number;
    token?: { value: string; from: "--token" | "--token-file" | "PITH_TOKEN"; file?: string };
    tls?: { cert: string; key: string };
    allowedOrigins: string[];
  };
  idleUnloadMs?: number;
  /** settings from command-line flags (see main.ts) */
  flags?: Settings;
  /** the session store (default: files under $PITH_HOME/sessions) */
  store?: StoreConfig;
  /** how links to the other nodes of a PostgreSQL store are protected */
  link?: LinkSecurity;
}

const WEB_DIR = fileURLToPath(new URL("../../../clients/web/dist", import.meta.url));

/** The session host on the configured store; a string says why the store could not be used (exit 1). */
async function makeHost(log: Logger, idleUnloadMs = 0, flags: Settings = {}, storeConfig?: StoreConfig): Promise<SessionHost | string> {
  const store = await openStore(storeConfig, log);
  if (typeof store === "string") return store;
  return new SessionHost({
    sessionsDir: defaultSessionsDir(),
    store,
    logger: log,
    flags,
    idleUnloadMs,
  });
}

/** makeHost, or the reason on stderr and undefined. */
export async function hostOrExit(log: Logger, idleUnloadMs: number, flags: Settings | undefined, store: StoreConfig | undefined): Promise<SessionHost | undefined> {
  const host = await makeHost(log, idleUnloadMs, flags, store);
  if (typeof host !== "string") return host;
  printErr(`pith: ${host}\n`);
  return undefined;
}

/** Runs until shutdown; resolves with the exit code. */
export async function runDaemon(opts: DaemonOptions): Promise<number> {
  const { log } = opts;
  let tls: TlsFiles | undefined;
  if (opts.serve?.tls) {
    const loaded = loadTlsFiles(opts.serve.tls.cert, opts.serve.tls.key);
    if (typeof loaded === "string") {
      printErr(`pith: ${loaded}\n`);
      return 1;
    }
    tls = loaded;
  }
  const host = await hostOrExit(log, opts.serve ? (opts.idleUnloadMs ?? 10 * 60_000) : 0, opts.flags, opts.store);
  if (!host) return 1;
  const clusterToken = opts.store?.kind === "postgres" ? opts.store.clusterToken : undefined;
  const rpc = new RpcServer(host, log, undefined, clusterToken, opts.link);
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
      // a client that stopped reading: the output stdout still buffers for it would keep the
      // process alive for as long as the client holds the pipe open
      if (stdio.abandoned) process.exit(code);
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
    const chosen = chooseToken(opts.serve.token);
    if (typeof chosen === "string") {
      printErr(`pith: ${chosen}\n`);
      await host.shutdown();
      return 2;
    }
    const { token, origin } = chosen;
    let ws: Awaited<ReturnType<typeof startWsServer>>;
    try {
      ws = await startWsServer({
        host: opts.serve.host,
        port: opts.serve.port,
        token,
        allowedOrigins: opts.serve.allowedOrigins,
        staticDir: existsSync(WEB_DIR) ? WEB_DIR : undefined,
        clusterToken,
        tls,
        logger: log,
        onConnection: (conn, info) => rpc.attach(conn, { fromNode: info.fromNode }),
      });
    } catch (err) {
      // a port in use, an address that is not ours: say so, no stack
      const e = err as NodeJS.ErrnoException;
      const where = `${opts.serve.host}:${opts.serve.port}`;
      // node's message already starts with its code ("listen EADDRINUSE: address already in use ..."): said once
      const why = e.code === "EADDRINUSE" ? `port ${opts.serve.port} is already taken (another pith serve?); pick another with --port N (--port 0: any free port)` : e.code && !e.message.includes(e.code) ? `${e.code} ${e.message}` : e.message;
      printErr(`pith: cannot listen on ${where}: ${why}\n`);
      await host.shutdown();
      return 1;
    }
    closeWs = () => ws.close();
    if (opts.store?.kind === "postgres" && !opts.store.nodeUrl) await advertise(host, opts.serve.host, ws.port, tls !== undefined, log);
    printErr(serveBanner({ url: ws.url, token, origin, flags: opts.flags ?? {}, offline: host.offline }));
  }
  return finished;
}

/**
 * The client token: the one given (the file is then left alone: it may be another daemon's), or
 * $PITH_HOME/token, made once and kept across restarts. A string says what is wrong.
 */
function chooseToken(given: NonNullable<DaemonOptions["serve"]>["token"]): { token: string; origin: TokenOrigin } | string {
  if (given) {
    const weak = checkTokenStrength(given.value, given.from === "--token-file" && given.file ? `the token file ${given.file}` : given.from);
    if (weak !== undefined) return weak;
    return { token: given.value, origin: { from: given.from, file: given.file } };
  }
  try {
    const file = ensureTokenFile(pithHome());
    return { token: file.token, origin: { from: "home", file: file.path, created: file.created } };
  } catch (err) {
    if (err instanceof BadTokenFile) return err.message;
    const e = err as NodeJS.ErrnoException;
    return `cannot use the token file in ${pithHome()}: ${e.code ?? ""} ${e.message}`;
  }
}

/**
 * On a PostgreSQL store without --node-url, the node advertises where it listens, so other nodes
 * can relay clients to it; an address that means "every interface" names no host to reach.
 */
async function advertise(host: SessionHost, address: string, port: number, secure: boolean, log: Logger): Promise<void> {
  const store = host.store;
  if (!store.advertise) return;
  if (address === "0.0.0.0" || address === "::") {
    log.warn("listening on every interface: give --node-url so other nodes can relay clients to this one");
    return;
  }
  await store.advertise(`${secure ? "wss" : "ws"}://${address.includes(":") ? `[${address}]` : address}:${port}`).catch((err) => log.warn({ err }, "could not advertise this node's URL"));
}
