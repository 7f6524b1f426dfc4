// `pith` command line. The daemon modes (--mode rpc | json, serve) hang off this entry later;
// for now it offers a few commands over the session store.
import { createLogger } from "../log/logger.js";
import { SessionError, SessionFile, defaultSessionsDir, listSessions } from "../session/index.js";
import { runDemo } from "./demo.js";
import { formatContext, formatTree } from "./format.js";

const USAGE = `pith — hosts coding-agent sessions and keeps them going past the context window

usage:
  pith demo                  create a session under $PITH_HOME, branch it, show its tree and context
  pith tree <file>           print a session file's tree (branches, labels, the active leaf)
  pith context <file>        print the messages the model sees for the active leaf
  pith list [--cwd <dir>]    list sessions in $PITH_HOME/sessions, newest first
  pith --help | --version

Files are opened read-only by tree and context: old formats are migrated in memory only.
Options: --json (tree, context, list: machine-readable output), --log-level <level> (stderr)
Environment: PITH_HOME (default ~/.pith), PITH_LOG_LEVEL`;

interface Parsed {
  positional: string[];
  flags: Map<string, string | true>;
}

function parseArgs(argv: string[]): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  const valued = new Set(["--cwd", "--log-level"]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq > 0) flags.set(a.slice(0, eq), a.slice(eq + 1));
      else if (valued.has(a)) flags.set(a, argv[++i] ?? "");
      else flags.set(a, true);
    } else positional.push(a);
  }
  return { positional, flags };
}

function usageError(message: string): number {
  process.stderr.write(`pith: ${message}\n\n${USAGE}\n`);
  return 2;
}

export async function main(argv: string[]): Promise<number> {
  const { positional, flags } = parseArgs(argv);
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
  const [command, ...rest] = positional;
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
