// The command line is strict per command: each command takes its own flags, and a flag of another
// command, an unknown one, a valued flag without its value or an argument too many is a usage error
// (exit 2, `pith: <what>` then the usage on stderr, nothing on stdout). The store flags (--store,
// --node-id, --node-url, --cluster-token, --workspace-root, and their PITH_* variables) are checked
// here too. The
// parser and storeConfigFrom are tested directly; bin/pith (the compiled CLI, as a user runs it) for
// the exit codes and the texts. What `store import/export` do is tested with the store, not here.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { realpathSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { parseCommandLine } from "../../src/cli/args.js";
import { storeConfigFrom } from "../../src/cli/store-config.js";
import "../support/fresh-dist.js"; // importing it builds dist/ when it is stale
import { tempDir } from "../support/tmp.js";
import { BIN, runAsUser, userEnv, type UserRun } from "../support/user-run.js";

type T = Parameters<typeof tempDir>[0];
type Run = UserRun;

/** Runs bin/pith in a fresh PITH_HOME (also its working directory). */
function pith(t: T, args: string[], extra: Record<string, string> = {}): Promise<Run> {
  const home = realpathSync(tempDir(t, "pith-flags-home-"));
  return runAsUser(args, { cwd: home, home, env: extra });
}

/** fn over the items, a few at a time (each run is a node start-up; the machine may be busy). */
async function few<I, O>(items: readonly I[], fn: (item: I) => Promise<O>, width = 4): Promise<O[]> {
  const out: O[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

function show(args: string[], r: Run): string {
  return `pith ${args.join(" ")}: exit ${r.status}${r.signal ? ` (${r.signal})` : ""}\n--- stdout:\n${r.stdout.slice(0, 1500)}\n--- stderr:\n${r.stderr.slice(0, 1500)}`;
}

// ---- the flag tables -----------------------------------------------------------------------------

const TOOLS = ["--sandbox", "--sandbox-network", "--permission-mode", "--allow-outside-cwd"];
const STORE = ["--store", "--store-file", "--node-id", "--node-url", "--cluster-token", "--cluster-token-file"];
/** The daemon modes' node flags. */
const NODE = ["--workspace-root"];
/** How a relaying node (serve, --mode rpc) links to the others. */
const LINK = ["--tls-ca", "--trusted-network"];
const SWITCHES = new Set(["--json", "--stdio", "--continue", "--allow-outside-cwd", "--trusted-network", "--rotate"]);
/** A valid value of each valued flag (the store ones with a postgres store given beside them). */
const VALUE: Record<string, string> = {
  "--log-level": "warn",
  "--cwd": "/tmp",
  "--host": "127.0.0.1",
  "--port": "0",
  "--token": "tok",
  "--tls-cert": "cert.pem",
  "--tls-key": "key.pem",
  "--token-file": "tok.txt",
  "--allow-origin": "http://a",
  "--idle-unload": "5",
  "--session": "s.jsonl",
  "--model": "m",
  "--sandbox": "off",
  "--sandbox-network": "on",
  "--permission-mode": "ask",
  "--store": "postgres://pith@127.0.0.1:1/pith",
  "--node-id": "node-1",
  "--node-url": "ws://127.0.0.1:9/rpc",
  "--cluster-token": "secret_1",
  "--cluster-token-file": "cluster.txt",
  "--store-file": "store.txt",
  "--tls-ca": "ca.pem",
  "--workspace-root": "/srv/work",
  "--out": "out.jsonl",
};
const ALL_FLAGS = [...new Set([...Object.keys(VALUE), ...SWITCHES])];

/** Each command: the words that select it, a valid set of arguments, and the flags it takes (beside --log-level). */
const TABLE: { name: string; words: string[]; args: string[]; flags: string[] }[] = [
  { name: "serve", words: ["serve"], args: [], flags: ["--host", "--port", "--token", "--token-file", "--tls-cert", "--tls-key", "--allow-origin", "--stdio", "--idle-unload", ...TOOLS, ...STORE, ...NODE, ...LINK] },
  { name: "--mode rpc", words: ["--mode", "rpc"], args: [], flags: [...TOOLS, ...STORE, ...NODE, ...LINK] },
  { name: "--mode json", words: ["--mode", "json"], args: ["hello"], flags: ["--session", "--continue", "--model", ...TOOLS, ...STORE, ...NODE] },
  { name: "--mode text", words: ["--mode", "text"], args: ["hello"], flags: ["--session", "--continue", "--model", ...TOOLS, ...STORE, ...NODE] },
  { name: "acp", words: ["acp"], args: [], flags: [...TOOLS, ...STORE, ...NODE] },
  { name: "demo", words: ["demo"], args: [], flags: [] },
  { name: "tree", words: ["tree"], args: ["f.jsonl"], flags: ["--json"] },
  { name: "context", words: ["context"], args: ["f.jsonl"], flags: ["--json"] },
  { name: "list", words: ["list"], args: [], flags: ["--cwd", "--json", ...STORE] },
  { name: "store import", words: ["store", "import"], args: ["a.jsonl", "b.jsonl"], flags: [...STORE] },
  { name: "store export", words: ["store", "export"], args: ["sid"], flags: ["--out", ...STORE] },
  { name: "token", words: ["token"], args: [], flags: ["--rotate"] },
];

function withFlag(flag: string): string[] {
  return SWITCHES.has(flag) ? [flag] : [flag, VALUE[flag]];
}

test("each command takes exactly its own flags: every other flag is refused, naming it and the command", () => {
  for (const c of TABLE) {
    for (const flag of ALL_FLAGS) {
      const argv = [...c.words, ...c.args, ...withFlag(flag)];
      const p = parseCommandLine(argv);
      if (c.flags.includes(flag) || flag === "--log-level") {
        assert.equal(p.kind, "command", `${argv.join(" ")}: ${JSON.stringify(p)}`);
        if (p.kind === "command") {
          assert.equal(p.command, c.name);
          assert.deepEqual(p.args, c.args);
          if (!SWITCHES.has(flag)) assert.equal(p.str(flag), VALUE[flag]);
        }
      } else assert.deepEqual(p, { kind: "error", message: `${c.name} does not take ${flag}`, command: c.name }, argv.join(" "));
    }
    // all its flags at once, before the command words too; --flag=value as well
    const all = c.flags.flatMap((f) => (SWITCHES.has(f) ? [f] : [`${f}=${VALUE[f]}`]));
    const p = parseCommandLine([...all, ...c.words, ...c.args, "--log-level", "debug"]);
    assert.equal(p.kind, "command", `${c.name}: ${JSON.stringify(p)}`);
    if (p.kind === "command") {
      assert.equal(p.command, c.name);
      for (const f of c.flags) assert.equal(p.has(f), true, f);
      assert.equal(p.str("--log-level"), "debug");
    }
  }
});

test("the arguments of each command are counted; --help and --version win anywhere", () => {
  const error = (argv: string[]) => {
    const p = parseCommandLine(argv);
    return p.kind === "error" ? p.message : `(${p.kind})`;
  };
  assert.equal(error(["demo", "extra"]), "demo takes no arguments; unexpected: extra");
  assert.equal(error(["--mode", "rpc", "x"]), "--mode rpc takes no arguments; unexpected: x");
  assert.equal(error(["serve", "now"]), "serve takes no arguments; unexpected: now");
  assert.equal(error(["list", "here"]), "list takes no arguments; unexpected: here");
  assert.equal(error(["acp", "x"]), "acp takes no arguments; unexpected: x");
  assert.equal(error(["tree", "a", "b"]), "tree takes one session (a file, an id or its first 8 characters); unexpected: b");
  assert.equal(error(["context"]), "context takes one session (a file, an id or its first 8 characters)");
  assert.equal(error(["store", "export"]), "store export takes one session id");
  assert.equal(error(["store", "export", "a", "b"]), "store export takes one session id; unexpected: b");
  assert.equal(error(["store", "import"]), "store import needs at least one session file");
  assert.equal(error(["store"]), "store needs a command: import or export");
  assert.equal(error(["store", "frob"]), "unknown store command: frob (import or export)");
  assert.equal(error(["frob"]), "unknown command: frob");
  assert.equal(error(["--mode", "yaml"]), "unknown mode: yaml (rpc, json or text)");
  assert.equal(error(["serve", "--port"]), "--port needs a value");
  assert.equal(error(["serve", "--port", "--stdio"]), "--port needs a value");
  assert.equal(error(["serve", "--stdio=yes"]), "--stdio takes no value");
  assert.equal(error(["serve", "--sandbx", "off"]), "unknown option: --sandbx");
  assert.equal(error(["--mode"]), "--mode needs a value");
  for (const argv of [["list", "--port", "3", "--help"], ["--help", "--nope"], ["help", "me"], ["store", "frob", "--help"], ["serve", "--port", "--help"]]) assert.equal(error(argv), "(help)", argv.join(" "));
  assert.equal(error(["tree", "--version", "--stdio"]), "(version)");
  // nothing at all is the demo; `--` ends the flags (a prompt may start with --)
  const demo = parseCommandLine([]);
  assert.ok(demo.kind === "command" && demo.command === "demo" && demo.args.length === 0);
  const prompt = parseCommandLine(["--mode", "json", "--model", "m", "--", "--port", "is", "a flag"]);
  assert.ok(prompt.kind === "command" && prompt.command === "--mode json", JSON.stringify(prompt));
  if (prompt.kind === "command") assert.deepEqual([prompt.args, prompt.str("--model"), prompt.has("--port")], [["--port", "is", "a flag"], "m", false]);
  const origins = parseCommandLine(["serve", "--allow-origin", "http://a", "--allow-origin=http://b"]);
  assert.ok(origins.kind === "command");
  if (origins.kind === "command") assert.deepEqual(origins.all("--allow-origin"), ["http://a", "http://b"]);
  const roots = parseCommandLine(["acp", "--workspace-root", "/a", "--workspace-root=/b"]);
  assert.ok(roots.kind === "command");
  if (roots.kind === "command") assert.deepEqual(roots.all("--workspace-root"), ["/a", "/b"]);
});

test("storeConfigFrom: --workspace-root (repeated) or PITH_WORKSPACE_ROOTS, absolute paths, only with a PostgreSQL store", () => {
  const from = (flags: Record<string, string>, roots: string[], env: NodeJS.ProcessEnv = {}) => storeConfigFrom((f) => flags[f], env, (f) => (f === "--workspace-root" ? roots : []));
  const pg = { "--store": "postgres://db/pith" };
  const url = "postgres://db/pith";
  assert.deepEqual(from(pg, []), { kind: "postgres", url }, "none given: undefined (any directory)");
  assert.deepEqual(from(pg, ["/srv/a", "/srv/b/../c/", "/srv/a"]), { kind: "postgres", url, workspaceRoots: ["/srv/a", "/srv/c"] }, "resolved, once each");
  const env = { PITH_WORKSPACE_ROOTS: ["/e/1", "", "/e/2"].join(delimiter) };
  assert.deepEqual(from(pg, [], env), { kind: "postgres", url, workspaceRoots: ["/e/1", "/e/2"] }, "the variable, split at the path delimiter");
  assert.deepEqual(from(pg, ["/flag"], env), { kind: "postgres", url, workspaceRoots: ["/flag"] }, "the flag wins over the variable");
  assert.deepEqual(from(pg, [], { PITH_WORKSPACE_ROOTS: "" }), { kind: "postgres", url });
  // a command that does not take the flag does not read the variable
  assert.deepEqual(storeConfigFrom((f) => (pg as Record<string, string>)[f], env), { kind: "postgres", url });
  // usage errors: a relative path, or the flag with the file store (the variable is then ignored)
  assert.equal(from(pg, ["/ok", "rel/dir"]), "bad --workspace-root: rel/dir (an absolute path)");
  assert.equal(from(pg, [""]), 'bad --workspace-root: "" (an absolute path)');
  assert.equal(from(pg, [], { PITH_WORKSPACE_ROOTS: ["/ok", "./x"].join(delimiter) }), "bad PITH_WORKSPACE_ROOTS: ./x (an absolute path)");
  assert.equal(from({}, ["/srv/a"]), "--workspace-root needs a PostgreSQL store (--store postgres://... or PITH_STORE)");
  assert.equal(from({ "--store": "file" }, ["/srv/a"], { PITH_STORE: url }), "--workspace-root needs a PostgreSQL store (--store postgres://... or PITH_STORE)");
  assert.deepEqual(from({}, [], env), { kind: "file" });
});

test("storeConfigFrom: the file store by default, a postgres URL from --store or PITH_STORE, the node settings checked", () => {
  const from = (flags: Record<string, string>, env: NodeJS.ProcessEnv = {}) => storeConfigFrom((f) => flags[f], env);
  assert.deepEqual(from({}), { kind: "file" });
  assert.deepEqual(from({ "--store": "file" }), { kind: "file" });
  assert.deepEqual(from({}, { PITH_STORE: "" }), { kind: "file" });
  assert.deepEqual(from({ "--store": "postgres://u:p@db:5432/pith" }), { kind: "postgres", url: "postgres://u:p@db:5432/pith" });
  assert.deepEqual(from({ "--store": "postgresql:///pith?host=/run/postgresql" }), { kind: "postgres", url: "postgresql:///pith?host=/run/postgresql" });
  const full = { "--store": "postgres://db/pith", "--node-id": "a.B_9-x", "--node-url": "wss://n1.example:8443/rpc", "--cluster-token": "Tok_en-1" };
  assert.deepEqual(from(full), { kind: "postgres", url: "postgres://db/pith", nodeId: "a.B_9-x", nodeUrl: "wss://n1.example:8443/rpc", clusterToken: "Tok_en-1" });
  // the variables, and a flag winning over its variable
  const env = { PITH_STORE: "postgres://env/pith", PITH_NODE_ID: "env-node", PITH_NODE_URL: "ws://env:1", PITH_CLUSTER_TOKEN: "envtok" };
  assert.deepEqual(from({}, env), { kind: "postgres", url: "postgres://env/pith", nodeId: "env-node", nodeUrl: "ws://env:1", clusterToken: "envtok" });
  assert.deepEqual(from({ "--node-id": "flag-node" }, env), { kind: "postgres", url: "postgres://env/pith", nodeId: "flag-node", nodeUrl: "ws://env:1", clusterToken: "envtok" });
  // --store file over PITH_STORE: the node variables are ambient, ignored; the node flags are an error
  assert.deepEqual(from({ "--store": "file" }, env), { kind: "file" });
  assert.deepEqual(from({}, { PITH_NODE_ID: "n" }), { kind: "file" });
  for (const flag of ["--node-id", "--node-url", "--cluster-token"]) {
    assert.equal(from({ [flag]: full[flag as keyof typeof full] }), `${flag} needs a PostgreSQL store (--store postgres://... or PITH_STORE)`);
    assert.equal(from({ "--store": "file", [flag]: full[flag as keyof typeof full] }, env), `${flag} needs a PostgreSQL store (--store postgres://... or PITH_STORE)`);
  }
  // bad store values; a password never shows in the message
  for (const bad of ["x", "", "mysql://db/x", "postgres:db", "postgres//db", "http://db", "files", "postgres://db:99999/x"]) {
    const r = from({ "--store": bad });
    assert.equal(typeof r, "string", `--store ${JSON.stringify(bad)}: ${JSON.stringify(r)}`);
    assert.match(r as string, /^bad --store: .* \(postgres:\/\/\.\.\. or file\)$/);
  }
  assert.equal(from({ "--store": "mysql://root:hunter2@db/x" }), "bad --store: mysql://root:***@db/x (postgres://... or file)");
  assert.equal(from({}, { PITH_STORE: "sqlite" }), "bad PITH_STORE: sqlite (postgres://... or file)");
  const pg = { "--store": "postgres://db/pith" };
  for (const id of ["", "a/b", "a b", "é", "x".repeat(65)]) assert.match(String(from({ ...pg, "--node-id": id })), /^bad --node-id: /, id);
  assert.deepEqual(from({ ...pg, "--node-id": "x".repeat(64) }), { kind: "postgres", url: "postgres://db/pith", nodeId: "x".repeat(64) });
  for (const url of ["", "http://n:1", "n:1", "ws://", "ws:/x", "tcp://n:1"]) assert.match(String(from({ ...pg, "--node-url": url })), /^bad --node-url: .*ws:\/\/ or wss:\/\//, url);
  for (const tok of ["", "a b", "tok!", "tök"]) {
    const r = String(from({ ...pg, "--cluster-token": tok }));
    assert.match(r, /^bad --cluster-token: /, tok);
    if (tok) assert.ok(!r.includes(tok), `the token is repeated in: ${r}`);
  }
  assert.match(String(from({}, { PITH_STORE: "postgres://db/x", PITH_NODE_ID: "a/b" })), /^bad PITH_NODE_ID: /);
  assert.match(String(from({}, { PITH_STORE: "postgres://db/x", PITH_CLUSTER_TOKEN: "a b" })), /^bad PITH_CLUSTER_TOKEN: /);
});

test("storeConfigFrom: the secrets from files (--store-file, --cluster-token-file), white space trimmed; never with the inline flag too", (t) => {
  const dir = tempDir(t);
  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const url = "postgres://u:pw@db/pith";
  const storeFile = write("store", `${url}\n`);
  const tokenFile = write("cluster", "  Tok_en-1\n");
  const from = (flags: Record<string, string>, env: NodeJS.ProcessEnv = {}) => storeConfigFrom((f) => flags[f], env);
  assert.deepEqual(from({ "--store-file": storeFile, "--cluster-token-file": tokenFile }), { kind: "postgres", url, clusterToken: "Tok_en-1" });
  assert.deepEqual(from({ "--store-file": storeFile }, { PITH_STORE: "postgres://env/x" }), { kind: "postgres", url }, "the file flag wins over the variable");
  assert.equal(from({ "--store": url, "--store-file": storeFile }), "give --store or --store-file, not both");
  assert.equal(from({ "--store-file": join(dir, "missing") }), `cannot use --store-file ${join(dir, "missing")}: ENOENT`);
  assert.equal(from({ "--store-file": write("empty", "\n") }), `cannot use --store-file ${join(dir, "empty")}: it is empty`);
  assert.equal(from({ "--cluster-token-file": tokenFile }), "--cluster-token-file needs a PostgreSQL store (--store postgres://... or PITH_STORE)");
  const bad = String(from({ "--store-file": storeFile, "--cluster-token-file": write("bad", "a b c") }));
  assert.match(bad, /^bad --cluster-token-file: /);
  assert.ok(!bad.includes("a b c"), "the token is not repeated");
});

// ---- bin/pith ----------------------------------------------------------------------------------

test("bin/pith: a misplaced, unknown or incomplete flag, a bad store, extra or missing arguments: exit 2, the problem and the usage on stderr", async (t) => {
  const cases: [string[], RegExp][] = [
    [["list", "--port", "3"], /^pith: list does not take --port\n/],
    [["tree", "x", "--stdio"], /^pith: tree does not take --stdio\n/],
    [["demo", "--json"], /^pith: demo does not take --json\n/],
    [["serve", "--session", "s.jsonl"], /^pith: serve does not take --session\n/],
    [["acp", "--port", "1"], /^pith: acp does not take --port\n/],
    [["--mode", "rpc", "--stdio"], /^pith: --mode rpc does not take --stdio\n/],
    [["--mode", "json", "--out", "f", "hi"], /^pith: --mode json does not take --out\n/],
    [["store", "import", "a.jsonl", "--cwd", "/"], /^pith: store import does not take --cwd\n/],
    [["serve", "--store", "x"], /^pith: bad --store: x \(postgres:\/\/\.\.\. or file\)\n/],
    [["serve", "--port"], /^pith: --port needs a value\n/],
    [["serve", "--node-url", "ws://a:1"], /^pith: --node-url needs a PostgreSQL store/],
    [["list", "--store", "file", "--cluster-token", "t"], /^pith: --cluster-token needs a PostgreSQL store/],
    [["--mode", "rpc", "--store", "mysql://x"], /^pith: bad --store: mysql:\/\/x /],
    [["acp", "--store", "postgres://db/x", "--node-id", "no/slash"], /^pith: bad --node-id: no\/slash/],
    [["serve", "--workspace-root", "/srv/a"], /^pith: --workspace-root needs a PostgreSQL store/],
    [["--mode", "json", "--workspace-root", "/srv/a", "hi"], /^pith: --workspace-root needs a PostgreSQL store/],
    [["acp", "--store", "postgres://db/x", "--workspace-root", "/srv/a", "--workspace-root", "rel"], /^pith: bad --workspace-root: rel \(an absolute path\)\n/],
    [["list", "--store", "postgres://db/x", "--workspace-root", "/srv/a"], /^pith: list does not take --workspace-root\n/],
    [["store", "export"], /^pith: store export takes one session id\n/],
    [["store", "import"], /^pith: store import needs at least one session file\n/],
    [["store", "frob"], /^pith: unknown store command: frob/],
    [["store", "export", "sid"], /^pith: store import\/export need a PostgreSQL store \(--store postgres:\/\/\.\.\. or PITH_STORE\)\n/],
    [["store", "import", "a.jsonl", "--store", "file"], /^pith: store import\/export need a PostgreSQL store/],
    [["demo", "extra"], /^pith: demo takes no arguments; unexpected: extra\n/],
    [["--mode", "rpc", "serve"], /^pith: --mode rpc takes no arguments; unexpected: serve\n/],
    [["serve", "--stdio=1"], /^pith: --stdio takes no value\n/],
  ];
  const runs = await few(cases, ([a]) => pith(t, a));
  runs.forEach((r, i) => {
    const what = show(cases[i][0], r);
    assert.equal(r.status, 2, what);
    assert.equal(r.stdout, "", what);
    assert.match(r.stderr, cases[i][1], what);
    // one line, then the command's own usage (without one, the commands in a few lines): never the whole page
    assert.match(r.stderr, /^pith: [^\n]+\n(usage: pith |usage:\n {2}pith serve )/, what);
    assert.ok(r.stderr.trimEnd().split("\n").length <= 12, what);
  });
  // the variable is checked like the flag, and named
  const env = await pith(t, ["list"], { PITH_STORE: "sqlite" });
  assert.equal(env.status, 2, show(["list"], env));
  assert.match(env.stderr, /^pith: bad PITH_STORE: sqlite/);
  const roots = await pith(t, ["--mode", "rpc"], { PITH_STORE: "postgres://db/x", PITH_WORKSPACE_ROOTS: "here" });
  assert.equal(roots.status, 2, show(["--mode", "rpc"], roots));
  assert.match(roots.stderr, /^pith: bad PITH_WORKSPACE_ROOTS: here \(an absolute path\)\n/);
  // the commands without a store ignore PITH_STORE
  const demo = await pith(t, ["demo"], { PITH_STORE: "sqlite" });
  assert.equal(demo.status, 0, show(["demo"], demo));
});

test("bin/pith: the daemons still start with their flags (stdin closed ends --mode rpc and acp; serve ends on SIGTERM)", async (t) => {
  const rpc = ["--mode", "rpc", "--sandbox", "off", "--sandbox-network", "on", "--permission-mode", "auto", "--allow-outside-cwd", "--store", "file", "--log-level", "warn"];
  const acp = ["acp", "--sandbox=readonly", "--store=file", "--log-level=error"];
  const list = ["list", "--store", "file", "--cwd", "/nowhere", "--json", "--log-level", "debug"];
  const help = ["serve", "--port", "0", "--store", "file", "--help"];
  const [r1, r2, r3, r4] = await few([rpc, acp, list, help], (a) => pith(t, a));
  assert.equal(r1.status, 0, show(rpc, r1));
  assert.equal(r1.stdout, "");
  assert.equal(r2.status, 0, show(acp, r2));
  assert.equal(r3.status, 0, show(list, r3));
  assert.equal(r3.stdout, '{"sessions":[]}\n');
  assert.equal(r4.status, 0, show(help, r4));
  assert.match(r4.stdout, /^usage: pith serve [^]*--store postgres:\/\//, "serve's own help, with the store options");

  const home = realpathSync(tempDir(t, "pith-flags-serve-"));
  const args = ["serve", "--host", "127.0.0.1", "--port", "0", "--token", "tok_1-0123456789abcdef", "--allow-origin", "http://a", "--allow-origin=http://b", "--stdio", "--idle-unload", "5", "--sandbox", "off", "--permission-mode", "ask", "--store", "file", "--log-level", "warn"];
  const child = spawn(BIN, args, { cwd: home, env: userEnv(home), stdio: ["pipe", "pipe", "pipe"], timeout: 30_000, killSignal: "SIGKILL" });
  let stderr = "";
  child.stdout.resume();
  child.stderr.setEncoding("utf8");
  const closed = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on("close", (c, s) => resolve([c, s])));
  await new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (d: string) => {
      stderr += d;
      if (/pith serving on http:\/\/127\.0\.0\.1:\d+/.test(stderr)) resolve();
    });
    void closed.then(([c, s]) => reject(new Error(`serve exited (${c}, ${s}) before listening:\n${stderr}`)));
  });
  child.kill("SIGTERM");
  assert.deepEqual(await closed, [0, null], stderr);
});

test("bin/pith: valid PostgreSQL store flags pass the usage checks (list goes on to the store)", async (t) => {
  const args = ["list", "--store", "postgres://pith@127.0.0.1:1/pith", "--node-id", "n1", "--node-url", "ws://127.0.0.1:9/rpc", "--cluster-token", "tok_1", "--json"];
  const r = await pith(t, args);
  assert.notEqual(r.status, 2, show(args, r));
  assert.doesNotMatch(r.stderr, /usage:/, show(args, r));
  assert.equal(r.stdout, "", "no listing from a store that is not there");
  // --workspace-root too: the daemon goes on to the store, and says it cannot reach it
  const daemon = ["--mode", "rpc", "--store", "postgres://pith@127.0.0.1:1/pith", "--workspace-root", "/srv/a", "--workspace-root=/srv/b"];
  const d = await pith(t, daemon, { PITH_WORKSPACE_ROOTS: "relative-but-ignored" });
  assert.equal(d.status, 1, show(daemon, d));
  assert.match(d.stderr, /cannot use the session store at postgres:\/\/pith@127\.0\.0\.1:1\/pith/, show(daemon, d));
});
