// `pith` command line: the daemon modes (serve, --mode rpc | json, acp) and a few commands over the
// session store. Each command takes its own flags (args.ts); a usage error exits 2.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Settings } from "../host/policy/settings.js";
import { createAcpLogger, createLogger, type Logger } from "../log/logger.js";
import { checkTokenStrength } from "../rpc/auth.js";
import { SessionFile, defaultSessionsDir, listSessions, type SessionSummary } from "../session/index.js";
import { pithHome } from "../session/paths.js";
import { COMMANDS, parseCommandLine, takesStore, type CommandName } from "./args.js";
import { printError } from "./error-text.js";
import { closeInheritedDescriptors } from "./inherited-fds.js";
import { COMMAND_USAGE, COMMANDS_USAGE, USAGE } from "./help.js";
import { sessionFileOf } from "./session-ref.js";
import { linkSecurityFrom } from "./link-config.js";
import { commandLineSecretWarnings, secretSetting } from "./secret-args.js";
import { formatContext, formatTree } from "./format.js";
import { describeStore, storeConfigFrom, type StoreConfig } from "./store-config.js";
import { printErr, printJsonLine, printOut } from "./terminal-out.js";



/** One line saying what is wrong, then the command's own usage (or where the full one is). */
function usageError(message: string, command?: CommandName): number {
  printErr(`pith: ${message}\n${command ? COMMAND_USAGE[command] : `${COMMANDS_USAGE}\nRun pith --help for the commands and their options.`}\n`);
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

// The commands' modules are loaded when their command runs: `pith --version`, a usage error, `list`
// or `tree` do not pay for the daemon, the SDKs and the stores (about half of a start-up's CPU).
export async function main(argv: string[]): Promise<number> {
  // first, before anything is opened or started: no descriptor of pith's parent reaches a child
  const inherited = closeInheritedDescriptors();
  const parsed = parseCommandLine(argv);
  if (parsed.kind === "help") {
    printOut((parsed.command ? COMMAND_USAGE[parsed.command] : USAGE) + "\n");
    return 0;
  }
  if (parsed.kind === "version") {
    printOut("pith 0.1.0\n");
    return 0;
  }
  if (parsed.kind === "error") return usageError(parsed.message, parsed.command);
  const { command, args, str, has } = parsed;
  const usage = (message: string) => usageError(message, command);
  // acp: an editor shows all of stderr to the user; quiet unless a level is asked for (logger.ts)
  const log = command === "acp" ? createAcpLogger(str("--log-level")) : createLogger(str("--log-level"));
  if (inherited.length > 0) log.debug({ fds: inherited }, "closed descriptors inherited without close-on-exec");
  const json = has("--json");
  // flags are checked per command already: the ones a command does not take are absent here
  const trusted = settingsFlags(str, has);
  if (typeof trusted === "string") return usage(trusted);
  // the store of the commands that take one (demo, tree and context work on files, whatever PITH_STORE says)
  const roots = COMMANDS[command].flags.includes("--workspace-root") ? parsed.all : undefined;
  const store: StoreConfig | string = takesStore(command) ? storeConfigFrom(str, process.env, roots) : { kind: "file" };
  if (typeof store === "string") return usage(store);
  // how the relaying daemons (serve, --mode rpc) link to other nodes; the other commands never link
  const link = COMMANDS[command].flags.includes("--tls-ca") ? linkSecurityFrom(str, has, process.env, store) : {};
  if (typeof link === "string") return usage(link);
  for (const warning of commandLineSecretWarnings(str)) log.warn(warning);
  switch (command) {
    case "--mode rpc":
      return (await import("./daemon.js")).runDaemon({ log, stdio: true, flags: trusted, store, link });
    case "--mode json":
    case "--mode text": {
      const prompt = args.join(" ");
      if (!prompt.trim()) return usage("a prompt is needed");
      if (str("--session") && has("--continue")) return usage("--session and --continue cannot be used together");
      // ask needs someone to answer: a terminal for -p, never a script's pipe (denying every change
      // in silence), whether the flag or the user's settings file asks for it
      const fromSettings = trusted.permissionMode === undefined && (await import("./settings-mode.js")).settingsPermissionMode(process.cwd()) === "ask";
      const ask = trusted.permissionMode === "ask" || fromSettings;
      const asked = fromSettings ? `permissionMode "ask" in your settings (${join(pithHome(), "settings.json")})` : "--permission-mode ask";
      if (ask && (command === "--mode json" || !process.stdin.isTTY)) return usage(`${asked} needs a terminal to ask on${command === "--mode json" ? " (pith -p)" : ": stdin is not one"}; use --permission-mode auto or readonly`);
      const canAsk = command === "--mode text" && process.stdin.isTTY === true;
      const run = { log, prompt, asker: ask ? (await import("./terminal-asker.js")).terminalAsker() : undefined, canAsk, session: str("--session"), continueLast: has("--continue"), model: str("--model"), flags: trusted, store };
      return command === "--mode json" ? (await import("./json-mode.js")).runJsonMode(run) : (await import("./text-mode.js")).runTextMode(run);
    }
    case "acp":
      return (await import("./acp-mode.js")).runAcpMode({ log, flags: trusted, store });
    case "serve": {
      const port = Number(str("--port") ?? 7777);
      if (!Number.isInteger(port) || port < 0 || port > 65535) return usage(`bad --port: ${str("--port")}`);
      const idle = Number(str("--idle-unload") ?? 600);
      if (!Number.isFinite(idle) || idle < 0) return usage(`bad --idle-unload: ${str("--idle-unload")}`);
      const token = secretSetting(str, process.env, { flag: "--token", fileFlag: "--token-file", variable: "PITH_TOKEN" });
      if (typeof token === "string") return usage(token);
      if (token) {
        const weak = checkTokenStrength(token.value, token.source === "--token-file" ? `the token file ${str("--token-file")}` : token.source);
        if (weak !== undefined) return usage(weak);
      }
      const [cert, key] = [str("--tls-cert"), str("--tls-key")];
      if ((cert === undefined) !== (key === undefined)) return usage("--tls-cert and --tls-key go together");
      const tls = cert !== undefined && key !== undefined ? { cert, key } : undefined;
      const given = token && { value: token.value, from: token.source as "--token" | "--token-file" | "PITH_TOKEN", file: str("--token-file") };
      const serve = { host: str("--host") ?? "127.0.0.1", port, token: given, tls, allowedOrigins: parsed.all("--allow-origin") };
      return (await import("./daemon.js")).runDaemon({ log, stdio: has("--stdio"), idleUnloadMs: idle * 1000, flags: trusted, store, serve, link });
    }
    case "store import":
    case "store export": {
      if (store.kind !== "postgres") return usage("store import/export need a PostgreSQL store (--store postgres://... or PITH_STORE)");
      const out = str("--out");
      if (out === "") return usage("--out needs a file name");
      const what = command === "store import" ? { command: "import" as const, files: args } : { command: "export" as const, sessionId: args[0], out };
      return (await import("./store-command.js")).runStoreCommand(what, store, log);
    }
    case "token":
      return (await import("./token-command.js")).runTokenCommand({ rotate: has("--rotate") });
    case "models":
      return (await import("./models-command.js")).runModelsCommand({ json, refresh: has("--refresh") });
    case "eval":
      // the table and the progress say what happens (a case recorded with another provider's model
      // would warn on every copy opened); only errors of the sessions by default
      return (await import("./eval-command.js")).runEvalCommand({
        log: createLogger(str("--log-level") ?? process.env.PITH_LOG_LEVEL ?? "error"),
        model: str("--model"),
        summarizer: str("--summarizer"),
        judge: str("--judge"),
        cycles: str("--cycles"),
        framing: str("--framing"),
        cases: str("--cases"),
        only: parsed.all("--case"),
        compare: str("--compare"),
        json: str("--json"),
        baseline: str("--baseline"),
      });
    case "mcp":
      // the listing says what happened; of the servers' log lines, only warnings and worse by default
      return (await import("./mcp-command.js")).runMcpCommand({ json, log: createLogger(str("--log-level") ?? process.env.PITH_LOG_LEVEL ?? "warn") });
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
        return (await import("./demo.js")).runDemo(log);
      case "tree":
      case "context": {
        const session = SessionFile.open(sessionFileOf(args[0]), { readOnly: true });
        try {
          for (const w of session.warnings) log.warn({ line: w.line, kind: w.kind }, w.message);
          if (command === "tree") {
            const tree = session.tree();
            if (json) printJsonLine(tree);
            else printOut(formatTree(tree));
          } else {
            const ctx = session.buildContext();
            if (json) printJsonLine(ctx);
            else printOut(formatContext(ctx));
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
            sessions = await (await import("./store-command.js")).listStoreSessions(o.store, { cwd: o.cwd }, log);
          } catch (err) {
            printError(err);
            return 1;
          }
        }
        if (json) printJsonLine({ sessions });
        else if (sessions.length === 0) {
          // (a directory that is gone may still have sessions: it is looked for, then said to be gone)
          const gone = o.cwd !== undefined && !existsSync(o.cwd) ? " (no such directory)" : "";
          printOut(`no sessions ${o.cwd ? `of ${resolve(o.cwd)}${gone} ` : ""}in ${describeStore(o.store, defaultSessionsDir())}\n`);
        }
        else {
          // the id's first 8 characters are what tree, context and --session take
          printOut("id        modified                   messages  name or first message  (tree, context and --session take the id or its first 8 characters)\n");
          for (const s of sessions) printOut(`${s.id.slice(0, 8)}  ${s.modified}  ${s.messageCount.toString().padStart(8)}  ${s.name ?? s.firstMessage.slice(0, 60)}\n          ${s.id}  ${s.file}\n`);
        }
        return 0;
      }
    }
  } catch (err) {
    // a session error, or a file system one (PITH_HOME is a file, no permission, disk full): say it, no stack
    const e = err as NodeJS.ErrnoException;
    if (typeof e?.code !== "string" || typeof e.message !== "string") throw err;
    printError(err);
    return 1;
  }
}
