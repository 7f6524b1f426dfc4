// The command line, strict per command: each command names the flags it takes and how many
// arguments. An unknown flag, a flag of another command, a valued flag without its value, or an
// argument too many is a usage error, never silently ignored. --help, --version and --log-level
// go anywhere. `--` ends the flags (what follows is arguments, e.g. a prompt that starts with --).
// Two short forms: -h (--help) and -p (--print: the prompt's reply as plain text, --mode text).

/** A switch (--stdio), a flag with a value (--port 7777 or --port=7777), or one that repeats. */
type FlagKind = "switch" | "value" | "repeated";

const FLAGS: Record<string, FlagKind> = {
  "--help": "switch",
  "--version": "switch",
  "--log-level": "value",
  "--mode": "value",
  "--print": "switch",
  "--json": "switch",
  "--cwd": "value",
  "--host": "value",
  "--port": "value",
  "--token": "value",
  "--token-file": "value",
  "--tls-cert": "value",
  "--tls-key": "value",
  "--allow-origin": "repeated",
  "--stdio": "switch",
  "--idle-unload": "value",
  "--session": "value",
  "--continue": "switch",
  "--model": "value",
  "--sandbox": "value",
  "--sandbox-network": "value",
  "--permission-mode": "value",
  "--allow-outside-cwd": "switch",
  "--store": "value",
  "--node-id": "value",
  "--node-url": "value",
  "--cluster-token": "value",
  "--cluster-token-file": "value",
  "--store-file": "value",
  "--tls-ca": "value",
  "--trusted-network": "switch",
  "--workspace-root": "repeated",
  "--out": "value",
  "--rotate": "switch",
  "--refresh": "switch",
  "--summarizer": "value",
  "--judge": "value",
  "--cycles": "value",
  "--framing": "value",
  "--cases": "value",
  "--compare": "value",
  "--case": "repeated",
  "--baseline": "value",
};

/** `pith eval --json FILE` writes its report to a file; everywhere else --json is a switch. */
const EVAL_KINDS: Record<string, FlagKind> = { "--json": "value" };

/** Taken by every command. */
const GLOBAL = ["--help", "--version", "--log-level"];
/** What the model's tools may do (settings from flags). */
const TOOLS = ["--sandbox", "--sandbox-network", "--permission-mode", "--allow-outside-cwd"];
/** The session store. */
const STORE = ["--store", "--store-file", "--node-id", "--node-url", "--cluster-token", "--cluster-token-file"];
/** What a daemon node of a PostgreSQL store reaches (not for the store commands). */
const NODE = ["--workspace-root"];
/**
 * How a node that relays clients (serve, --mode rpc) links to the others: the CA a wss:// node's
 * certificate must chain to, and whether plain ws:// to another machine is allowed.
 */
const LINK = ["--tls-ca", "--trusted-network"];

export type CommandName = "serve" | "--mode rpc" | "--mode json" | "--mode text" | "acp" | "demo" | "tree" | "context" | "list" | "store import" | "store export" | "token" | "models" | "mcp" | "eval";

interface CommandSpec {
  flags: readonly string[];
  /** the number of arguments taken, at least and at most */
  args: readonly [number, number];
  /** the message when the number of arguments is wrong */
  argsError: string;
}

const NONE = { args: [0, 0], argsError: "takes no arguments" } as const;

export const COMMANDS: Record<CommandName, CommandSpec> = {
  serve: { flags: ["--host", "--port", "--token", "--token-file", "--tls-cert", "--tls-key", "--allow-origin", "--stdio", "--idle-unload", ...TOOLS, ...STORE, ...NODE, ...LINK], ...NONE },
  "--mode rpc": { flags: ["--mode", ...TOOLS, ...STORE, ...NODE, ...LINK], ...NONE },
  "--mode json": { flags: ["--mode", "--session", "--continue", "--model", ...TOOLS, ...STORE, ...NODE], args: [0, Infinity], argsError: "" },
  "--mode text": { flags: ["--mode", "--print", "--session", "--continue", "--model", ...TOOLS, ...STORE, ...NODE], args: [0, Infinity], argsError: "" },
  acp: { flags: [...TOOLS, ...STORE, ...NODE], ...NONE },
  demo: { flags: [], ...NONE },
  tree: { flags: ["--json"], args: [1, 1], argsError: "takes one session (a file, an id or its first 8 characters)" },
  context: { flags: ["--json"], args: [1, 1], argsError: "takes one session (a file, an id or its first 8 characters)" },
  list: { flags: ["--cwd", "--json", ...STORE], ...NONE },
  "store import": { flags: [...STORE], args: [1, Infinity], argsError: "needs at least one session file" },
  "store export": { flags: ["--out", ...STORE], args: [1, 1], argsError: "takes one session id" },
  token: { flags: ["--rotate"], ...NONE },
  models: { flags: ["--json", "--refresh"], ...NONE },
  mcp: { flags: ["--json"], ...NONE },
  eval: { flags: ["--model", "--summarizer", "--judge", "--cycles", "--framing", "--cases", "--case", "--compare", "--json", "--baseline"], ...NONE },
};

/** Whether the command takes the store flags (and so reads PITH_STORE and the node variables). */
export function takesStore(command: CommandName): boolean {
  return COMMANDS[command].flags.includes("--store");
}

/** The words of the command line sorted into flags and arguments, before any command is chosen. */
interface Tokens {
  args: string[];
  /** each flag's last value (true for a switch) */
  flags: Map<string, string | true>;
  /** every value of a repeated flag */
  repeated: Map<string, string[]>;
  /** the first problem met (an unknown flag, a missing value), reported unless --help or --version */
  problem?: string;
}

const SHORT: Record<string, string> = { "-h": "--help", "-p": "--print" };

function tokenize(argv: readonly string[]): Tokens {
  const t: Tokens = { args: [], flags: new Map(), repeated: new Map() };
  const kinds = argv.find((a) => !a.startsWith("-")) === "eval" ? { ...FLAGS, ...EVAL_KINDS } : FLAGS;
  const problem = (p: string) => (t.problem ??= p);
  for (let i = 0; i < argv.length; i++) {
    const a = SHORT[argv[i]] ?? argv[i];
    if (a === "--") {
      t.args.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith("--")) {
      t.args.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    const name = eq > 0 ? a.slice(0, eq) : a;
    const kind = kinds[name] as FlagKind | undefined;
    let value: string | true = true;
    if (kind === undefined) problem(`unknown option: ${name}`);
    else if (kind === "switch") {
      if (eq > 0) problem(`${name} takes no value`);
    } else if (eq > 0) value = a.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) value = argv[++i];
    else {
      problem(`${name} needs a value`);
      continue;
    }
    t.flags.set(name, value);
    if (kind === "repeated" && typeof value === "string") t.repeated.set(name, [...(t.repeated.get(name) ?? []), value]);
  }
  return t;
}

export type Parsed =
  /** with a command: that command's own help */
  | { kind: "help"; command?: CommandName }
  | { kind: "version" }
  /** with a command: the usage to show under the message */
  | { kind: "error"; message: string; command?: CommandName }
  | {
      kind: "command";
      command: CommandName;
      args: string[];
      /** a valued flag's value, when given */
      str(name: string): string | undefined;
      has(name: string): boolean;
      all(name: string): string[];
    };

const PLAIN = ["serve", "acp", "demo", "tree", "context", "list", "token", "models", "mcp", "eval"] as const satisfies readonly CommandName[];

function commandOf(t: Tokens): { command: CommandName; args: string[] } | string {
  const mode = t.flags.get("--mode");
  if (t.flags.has("--print")) {
    if (mode !== undefined && mode !== "text") return `-p prints the reply as text: it does not go with --mode ${String(mode)}`;
    return { command: "--mode text", args: t.args };
  }
  if (typeof mode === "string") {
    if (mode !== "rpc" && mode !== "json" && mode !== "text") return `unknown mode: ${mode} (rpc, json or text)`;
    return { command: `--mode ${mode}`, args: t.args };
  }
  const [first = "demo", ...rest] = t.args;
  if (first === "store") {
    const [sub, ...more] = rest;
    if (sub === undefined) return "store needs a command: import or export";
    if (sub !== "import" && sub !== "export") return `unknown store command: ${sub} (import or export)`;
    return { command: `store ${sub}`, args: more };
  }
  const plain = PLAIN.find((c) => c === first);
  if (plain === undefined) return `unknown command: ${first}`;
  return { command: plain, args: rest };
}

/** The command whose help is asked for: none (the whole page) when no command is named. */
function helpFor(t: Tokens): CommandName | undefined {
  if (t.args.length === 0 && !t.flags.has("--mode") && !t.flags.has("--print")) return undefined;
  const chosen = commandOf(t);
  return typeof chosen === "string" ? undefined : chosen.command;
}

/** The command the line asks for with its arguments and flags, or what is wrong with it. */
export function parseCommandLine(argv: readonly string[]): Parsed {
  const t = tokenize(argv);
  if (t.args[0] === "help") return { kind: "help", command: helpFor({ ...t, args: t.args.slice(1) }) };
  if (t.flags.has("--help")) return { kind: "help", command: helpFor(t) };
  if (t.flags.has("--version")) return { kind: "version" };
  const chosen = commandOf(t);
  // a bare `pith` means the demo, but a wrong option on it is not about the demo: the general usage
  const named = t.args.length > 0 || t.flags.has("--mode") || t.flags.has("--print");
  const known = typeof chosen === "string" || !named ? undefined : chosen.command;
  if (t.problem) return { kind: "error", message: t.problem, command: known };
  if (typeof chosen === "string") return { kind: "error", message: chosen };
  const { command, args } = chosen;
  const spec = COMMANDS[command];
  const error = (message: string): Parsed => ({ kind: "error", message, command: known });
  for (const name of t.flags.keys()) {
    if (!GLOBAL.includes(name) && !spec.flags.includes(name)) return error(named ? `${command} does not take ${name}` : `${name} goes with a command`);
  }
  const [min, max] = spec.args;
  if (args.length < min) return error(`${command} ${spec.argsError}`);
  if (args.length > max) return error(`${command} ${spec.argsError}; unexpected: ${args.slice(max).join(" ")}`);
  const str = (name: string) => {
    const v = t.flags.get(name);
    return typeof v === "string" ? v : undefined;
  };
  return { kind: "command", command, args, str, has: (name) => t.flags.has(name), all: (name) => t.repeated.get(name) ?? [] };
}
