// `pith` command line: the daemon modes (serve, --mode rpc | json, acp) and a few commands over the
// session store. Each command takes its own flags (args.ts); a usage error exits 2.
import { delimiter } from "node:path";
import type { Settings } from "../host/settings.js";
import { createAcpLogger, createLogger, type Logger } from "../log/logger.js";
import { checkTokenStrength } from "../rpc/auth.js";
import { SessionError, SessionFile, defaultSessionsDir, listSessions, type SessionSummary } from "../session/index.js";
import { runAcpMode } from "./acp-mode.js";
import { COMMANDS, parseCommandLine, takesStore } from "./args.js";
import { runDaemon } from "./daemon.js";
import { runDemo } from "./demo.js";
import { runJsonMode } from "./json-mode.js";
import { linkSecurityFrom } from "./link-config.js";
import { commandLineSecretWarnings, secretSetting } from "./secret-args.js";
import { runModelsCommand } from "./models-command.js";
import { runTokenCommand } from "./token-command.js";
import { formatContext, formatTree } from "./format.js";
import { listStoreSessions, runStoreCommand } from "./store-command.js";
import { describeStore, storeConfigFrom, type StoreConfig } from "./store-config.js";

const USAGE = `pith — hosts coding-agent sessions and keeps them going past the context window

usage:
  pith serve [--host H] [--port P] [--token-file F] [--tls-cert FILE --tls-key FILE]
             [--allow-origin O]... [--stdio] [--idle-unload S]
                             the daemon over WebSocket at /rpc (and the web UI at /); --stdio adds
                             JSON-RPC on stdin/stdout, sharing the sessions; sessions nobody is
                             subscribed to are unloaded after S seconds idle (default 600, 0: never).
                             The token (at least 16 characters): --token-file F, PITH_TOKEN, else
                             $PITH_HOME/token (made once, kept across restarts); --token T works
                             but ps shows it. With a certificate and its key (PEM), https:// and
                             wss:// instead
  pith --mode rpc            the daemon over stdin/stdout (JSON-RPC 2.0, one message per line)
  pith acp                   the Agent Client Protocol over stdin/stdout, for editors (docs/acp.md)
  pith --mode json [--session FILE | --continue] [--model ID] "prompt"
                             run one prompt headless; every event is a JSON line on stdout
  pith demo                  create a session under $PITH_HOME, branch it, show its tree and context
  pith tree <file>           print a session file's tree (branches, labels, the active leaf)
  pith context <file>        print the messages the model sees for the active leaf
  pith list [--cwd <dir>]    list the store's sessions, newest first
  pith store import <file>...            copy session files into the PostgreSQL store
  pith store export <id> [--out <file>]  write a session of the PostgreSQL store as a session file
  pith models [--refresh] [--json]
                             the providers and models usable here: each key, whether each server
                             answered, each window and where it comes from (docs/providers.md)
  pith token [--rotate]      print the path of $PITH_HOME/token (made if missing); --rotate makes
                             a new token (running daemons keep the old one until restarted)
  pith --help | --version

Each command takes only its own options. Files are opened read-only by tree and context: old
formats are migrated in memory only. --json (tree, context, list): machine-readable output;
--log-level <level> (any command): logs on stderr.
What the model's tools may do (serve, --mode rpc | json, acp; over settings.json, docs/security.md):
  --sandbox workspace-write|readonly|off   --sandbox-network on|off
  --permission-mode auto|ask|readonly      --allow-outside-cwd
The session store (serve, --mode rpc | json, acp, list, store):
  --store postgres://...|file   PostgreSQL, or (the default) files under $PITH_HOME/sessions; a URL
                                with a password: --store-file F (a file holding it) or PITH_STORE
  with PostgreSQL, this node of a cluster: --node-id ID (A-Z a-z 0-9 _ . -, up to 64)
  --node-url ws[s]://...  (where the other nodes reach it)
  --cluster-token-file F | PITH_CLUSTER_TOKEN  (A-Z a-z 0-9 _ -; --cluster-token T: ps shows it)
  --tls-ca F | PITH_TLS_CA  (serve, --mode rpc: the CA wss:// nodes' certificates chain to)
  --trusted-network  (serve, --mode rpc: allow plain ws:// links to other machines)
  --workspace-root DIR... (serve, --mode rpc | json, acp: the directories this node reaches; it
  takes only sessions whose cwd is under one, and sends clients of the others to a node that does)
Environment: PITH_HOME (default ~/.pith), PITH_LOG_LEVEL, PITH_TOKEN, PITH_TLS_CA, ANTHROPIC_API_KEY,
ANTHROPIC_BASE_URL, OPENAI_API_KEY, OPENAI_BASE_URL (with neither key nor a model in settings,
sessions run the offline scripted demo), PITH_STORE,
PITH_NODE_ID, PITH_NODE_URL, PITH_CLUSTER_TOKEN, PITH_WORKSPACE_ROOTS (DIR${delimiter}DIR...) (the store
options; an option wins over its variable)`;

function usageError(message: string): number {
  process.stderr.write(`pith: ${message}\n\n${USAGE}\n`);
  return 2;
}

/** The settings flags give (trusted like the user's settings file), or a usage error. */
function settingsFlags(str: (name: string) => string | undefined, has: (name: string) => boolean): Settings | string {
  const flags: Settings = {};
  const sandbox = str("--sandbox");
  if (sandbox !== undefined) {
    if (sandbox !== "workspace-write" && sandbox !== "readonly" && sandbox !== "off") return `bad --sandbox: ${sandbox} (workspace-write, readonly or off)`;
    flags.sandbox = { mode: sandbox };
  }
  const network = str("--sandbox-network");
  if (network !== undefined) {
    if (network !== "on" && network !== "off") return `bad --sandbox-network: ${network} (on or off)`;
    flags.sandbox = { ...flags.sandbox, network: network === "on" };
  }
  const permission = str("--permission-mode");
  if (permission !== undefined) {
    if (permission !== "auto" && permission !== "ask" && permission !== "readonly") return `bad --permission-mode: ${permission} (auto, ask or readonly)`;
    flags.permissionMode = permission;
  }
  if (has("--allow-outside-cwd")) flags.allowOutsideCwd = true;
  return flags;
}

export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandLine(argv);
  if (parsed.kind === "help") {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  if (parsed.kind === "version") {
    process.stdout.write("pith 0.1.0\n");
    return 0;
  }
  if (parsed.kind === "error") return usageError(parsed.message);
  const { command, args, str, has } = parsed;
  // acp: an editor shows all of stderr to the user; quiet unless a level is asked for (logger.ts)
  const log = command === "acp" ? createAcpLogger(str("--log-level")) : createLogger(str("--log-level"));
  const json = has("--json");
  // flags are checked per command already: the ones a command does not take are absent here
  const trusted = settingsFlags(str, has);
  if (typeof trusted === "string") return usageError(trusted);
  // the store of the commands that take one (demo, tree and context work on files, whatever PITH_STORE says)
  const roots = COMMANDS[command].flags.includes("--workspace-root") ? parsed.all : undefined;
  const store: StoreConfig | string = takesStore(command) ? storeConfigFrom(str, process.env, roots) : { kind: "file" };
  if (typeof store === "string") return usageError(store);
  // how the relaying daemons (serve, --mode rpc) link to other nodes; the other commands never link
  const link = COMMANDS[command].flags.includes("--tls-ca") ? linkSecurityFrom(str, has, process.env, store) : {};
  if (typeof link === "string") return usageError(link);
  for (const warning of commandLineSecretWarnings(str)) log.warn(warning);
  switch (command) {
    case "--mode rpc":
      return runDaemon({ log, stdio: true, flags: trusted, store, link });
    case "--mode json":
      return runJsonMode({ log, prompt: args.join(" "), session: str("--session"), continueLast: has("--continue"), model: str("--model"), flags: trusted, store });
    case "acp":
      return runAcpMode({ log, flags: trusted, store });
    case "serve": {
      const port = Number(str("--port") ?? 7777);
      if (!Number.isInteger(port) || port < 0 || port > 65535) return usageError(`bad --port: ${str("--port")}`);
      const idle = Number(str("--idle-unload") ?? 600);
      if (!Number.isFinite(idle) || idle < 0) return usageError(`bad --idle-unload: ${str("--idle-unload")}`);
      const token = secretSetting(str, process.env, { flag: "--token", fileFlag: "--token-file", variable: "PITH_TOKEN" });
      if (typeof token === "string") return usageError(token);
      if (token) {
        const weak = checkTokenStrength(token.value, token.source === "--token-file" ? `the token file ${str("--token-file")}` : token.source);
        if (weak !== undefined) return usageError(weak);
      }
      const [cert, key] = [str("--tls-cert"), str("--tls-key")];
      if ((cert === undefined) !== (key === undefined)) return usageError("--tls-cert and --tls-key go together");
      const tls = cert !== undefined && key !== undefined ? { cert, key } : undefined;
      const given = token && { value: token.value, from: token.source as "--token" | "--token-file" | "PITH_TOKEN", file: str("--token-file") };
      const serve = { host: str("--host") ?? "127.0.0.1", port, token: given, tls, allowedOrigins: parsed.all("--allow-origin") };
      return runDaemon({ log, stdio: has("--stdio"), idleUnloadMs: idle * 1000, flags: trusted, store, serve, link });
    }
    case "store import":
    case "store export": {
      if (store.kind !== "postgres") return usageError("store import/export need a PostgreSQL store (--store postgres://... or PITH_STORE)");
      const out = str("--out");
      if (out === "") return usageError("--out needs a file name");
      const what = command === "store import" ? { command: "import" as const, files: args } : { command: "export" as const, sessionId: args[0], out };
      return runStoreCommand(what, store, log);
    }
    case "token":
      return runTokenCommand({ rotate: has("--rotate") });
    case "models":
      return runModelsCommand({ json, refresh: has("--refresh") });
    default:
      return fileCommand(command, args, { log, json, store, cwd: str("--cwd") });
  }
}

/** demo, tree, context, list: errors of the session files (or the store) exit 1, said in one line. */
async function fileCommand(command: "demo" | "tree" | "context" | "list", args: string[], o: { log: Logger; json: boolean; store: StoreConfig; cwd?: string }): Promise<number> {
  const { log, json } = o;
  try {
    switch (command) {
      case "demo":
        runDemo(log);
        return 0;
      case "tree":
      case "context": {
        const session = SessionFile.open(args[0], { readOnly: true });
        try {
          for (const w of session.warnings) log.warn({ line: w.line, kind: w.kind }, w.message);
          if (command === "tree") {
            const tree = session.tree();
            process.stdout.write(json ? JSON.stringify(tree) + "\n" : formatTree(tree));
          } else {
            const ctx = session.buildContext();
            process.stdout.write(json ? JSON.stringify(ctx) + "\n" : formatContext(ctx));
          }
        } finally {
          session.close();
        }
        return 0;
      }
      case "list": {
        let sessions: SessionSummary[];
        if (o.store.kind === "file") sessions = listSessions(defaultSessionsDir(), { cwd: o.cwd });
        else {
          try {
            sessions = await listStoreSessions(o.store, { cwd: o.cwd }, log);
          } catch (err) {
            // (a refused connection is an AggregateError: a code and an empty message)
            const e = err as NodeJS.ErrnoException;
            process.stderr.write(`pith: ${typeof e?.code === "string" ? `${e.code}: ` : ""}${e?.message || String(err)}\n`);
            return 1;
          }
        }
        if (json) process.stdout.write(JSON.stringify({ sessions }) + "\n");
        else if (sessions.length === 0) process.stdout.write(`no sessions in ${describeStore(o.store, defaultSessionsDir())}\n`);
        else for (const s of sessions) process.stdout.write(`${s.modified}  ${s.messageCount.toString().padStart(5)} msgs  ${s.name ?? s.firstMessage.slice(0, 60)}\n    ${s.file}\n`);
        return 0;
      }
    }
  } catch (err) {
    if (err instanceof SessionError) {
      process.stderr.write(`pith: ${err.code}: ${err.message}\n`);
      return 1;
    }
    const e = err as NodeJS.ErrnoException;
    if (typeof e?.code === "string" && typeof e.message === "string") {
      // a file system error (PITH_HOME is a file, no permission, disk full): say it, no stack
      process.stderr.write(`pith: ${e.code}: ${e.message}\n`);
      return 1;
    }
    throw err;
  }
}
