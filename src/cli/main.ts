// `pith` command line. The daemon modes (--mode rpc | json, serve) hang off this entry later;
// for now it offers a few commands over the session store.
import type { Settings } from "../host/settings.js";
import { createLogger } from "../log/logger.js";
import { SessionError, SessionFile, defaultSessionsDir, listSessions } from "../session/index.js";
import { runAcpMode } from "./acp-mode.js";
import { runDaemon } from "./daemon.js";
import { runDemo } from "./demo.js";
import { runJsonMode } from "./json-mode.js";
import { formatContext, formatTree } from "./format.js";

const USAGE = `pith — hosts coding-agent sessions and keeps them going past the context window

usage:
  pith serve [--host H] [--port P] [--token T] [--allow-origin O]... [--stdio] [--idle-unload S]
                             the daemon over WebSocket at /rpc (and the web UI at /); --stdio adds
                             JSON-RPC on stdin/stdout, sharing the sessions; sessions nobody is
                             subscribed to are unloaded after S seconds idle (default 600, 0: never)
  pith --mode rpc            the daemon over stdin/stdout (JSON-RPC 2.0, one message per line)
  pith acp                   the Agent Client Protocol over stdin/stdout, for editors (docs/acp.md)
  pith --mode json [--session FILE | --continue] [--model ID] "prompt"
                             run one prompt headless; every event is a JSON line on stdout
  pith demo                  create a session under $PITH_HOME, branch it, show its tree and context
  pith tree <file>           print a session file's tree (branches, labels, the active leaf)
  pith context <file>        print the messages the model sees for the active leaf
  pith list [--cwd <dir>]    list sessions in $PITH_HOME/sessions, newest first
  pith --help | --version

Files are opened read-only by tree and context: old formats are migrated in memory only.
Options: --json (tree, context, list: machine-readable output), --log-level <level> (stderr)
What the model's tools may do (serve, --mode rpc | json; over settings.json, see docs/security.md):
  --sandbox workspace-write|readonly|off   --sandbox-network on|off
  --permission-mode auto|ask|readonly      --allow-outside-cwd
Environment: PITH_HOME (default ~/.pith), PITH_LOG_LEVEL, PITH_TOKEN, ANTHROPIC_API_KEY,
ANTHROPIC_BASE_URL (without a key, sessions run the offline scripted demo)`;

interface Parsed {
  positional: string[];
  flags: Map<string, string | true>;
  origins: string[];
}

const VALUED_FLAGS = new Set(["--cwd", "--log-level", "--mode", "--host", "--port", "--token", "--session", "--model", "--allow-origin", "--idle-unload", "--sandbox", "--sandbox-network", "--permission-mode"]);

function parseArgs(argv: string[]): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  const origins: string[] = [];
  const valued = VALUED_FLAGS;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const [name, value]: [string, string | true] = eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, valued.has(a) ? (argv[++i] ?? "") : true];
      if (name === "--allow-origin") origins.push(String(value));
      else flags.set(name, value);
    } else positional.push(a);
  }
  return { positional, flags, origins };
}

function usageError(message: string): number {
  process.stderr.write(`pith: ${message}\n\n${USAGE}\n`);
  return 2;
}

const KNOWN_FLAGS = new Set(["--json", "--help", "--version", "--stdio", "--continue", "--allow-outside-cwd"]);

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
  const { positional, flags, origins } = parseArgs(argv);
  const log = createLogger(typeof flags.get("--log-level") === "string" ? (flags.get("--log-level") as string) : undefined);
  const json = flags.has("--json");
  if (flags.has("--help") || positional[0] === "help") {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  if (flags.has("--version")) {
    process.stdout.write("pith 0.1.0\n");
    return 0;
  }
  const str = (name: string) => (typeof flags.get(name) === "string" ? (flags.get(name) as string) : undefined);
  for (const name of flags.keys()) {
    if (!KNOWN_FLAGS.has(name) && !VALUED_FLAGS.has(name)) return usageError(`unknown option: ${name}`);
  }
  const trusted = settingsFlags(str, (name) => flags.has(name));
  if (typeof trusted === "string") return usageError(trusted);
  const mode = str("--mode");
  if (mode === "rpc") return runDaemon({ log, stdio: true, flags: trusted });
  if (mode === "json") return runJsonMode({ log, prompt: positional.join(" "), session: str("--session"), continueLast: flags.has("--continue"), model: str("--model"), flags: trusted });
  if (mode !== undefined) return usageError(`unknown mode: ${mode} (rpc or json)`);
  const [command, ...rest] = positional;
  if (command === "acp") return runAcpMode({ log, flags: trusted });
  if (command === "serve") {
    const port = Number(str("--port") ?? 7777);
    if (!Number.isInteger(port) || port < 0 || port > 65535) return usageError(`bad --port: ${str("--port")}`);
    const idle = Number(str("--idle-unload") ?? 600);
    if (!Number.isFinite(idle) || idle < 0) return usageError(`bad --idle-unload: ${str("--idle-unload")}`);
    return runDaemon({ log, stdio: flags.has("--stdio"), idleUnloadMs: idle * 1000, flags: trusted, serve: { host: str("--host") ?? "127.0.0.1", port, token: str("--token"), allowedOrigins: origins } });
  }
  try {
    switch (command) {
      case undefined:
      case "demo":
        runDemo(log);
        return 0;
      case "tree":
      case "context": {
        if (rest.length !== 1) return usageError(`${command} takes one session file`);
        const session = SessionFile.open(rest[0], { readOnly: true });
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
        const cwd = flags.get("--cwd");
        const sessions = listSessions(defaultSessionsDir(), { cwd: typeof cwd === "string" ? cwd : undefined });
        if (json) process.stdout.write(JSON.stringify({ sessions }) + "\n");
        else if (sessions.length === 0) process.stdout.write(`no sessions in ${defaultSessionsDir()}\n`);
        else for (const s of sessions) process.stdout.write(`${s.modified}  ${s.messageCount.toString().padStart(5)} msgs  ${s.name ?? s.firstMessage.slice(0, 60)}\n    ${s.file}\n`);
        return 0;
      }
      default:
        return usageError(`unknown command: ${command}`);
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
