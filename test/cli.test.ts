// The `pith` executable as a user runs it: bin/pith (the compiled CLI in dist/), started from an
// unrelated directory with PITH_HOME pointing at a temp dir. stdout carries only the command's own
// output; logs and errors go to stderr. Exit codes: 0 ok, 1 a session error, 2 a usage error.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { formatTree } from "../src/cli/format.js";
import { SessionFile, encodeCwd, type SessionSummary, type TreeView } from "../src/session/index.js";
import type { SessionContext } from "../src/session/context.js";
import { writeBranchedSession } from "./support/branched-session.js";
import { copyFixture, fixtureSkip } from "./support/fixture.js";
import { staleDist } from "./support/fresh-dist.js"; // importing it builds dist/ when it is stale
import { tempDir } from "./support/tmp.js";
import { BIN, runAsUser, userEnv, type UserRun } from "./support/user-run.js";

type T = Parameters<typeof tempDir>[0];
type Run = UserRun;
const pith = runAsUser;

function show(r: Run): string {
  return `exit ${r.status}\n--- stdout:\n${r.stdout.slice(0, 2000)}\n--- stderr:\n${r.stderr.slice(0, 2000)}`;
}

/** Runs the calls a few at a time: each is a node start-up, and the machine may be busy. */
async function fewAtATime<R>(calls: (() => Promise<R>)[], width = 3): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < calls.length; i += width) out.push(...(await Promise.all(calls.slice(i, i + width).map((c) => c()))));
  return out;
}

/** A working directory unrelated to the repository, and an empty PITH_HOME. */
function places(t: T): { cwd: string; home: string } {
  const cwd = realpathSync(tempDir(t, "pith-cli-cwd-"));
  const home = realpathSync(tempDir(t, "pith-cli-home-"));
  return { cwd, home };
}

function sessionFiles(home: string): string[] {
  const dir = join(home, "sessions");
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => join(dir, f));
}

/** A stored session with a branch and a label (test/support/branched-session.ts) under a fresh PITH_HOME. */
async function storedSession(t: T): Promise<{ cwd: string; home: string; file: string; id: string }> {
  const p = places(t);
  const { file, id } = writeBranchedSession(p.cwd, join(p.home, "sessions"));
  return { ...p, file, id };
}

test("--help, help and --version exit 0 with their text on stdout only", async (t) => {
  const p = places(t);
  const [help, helpCommand, version] = await Promise.all([["--help"], ["help"], ["--version"]].map((a) => pith(a, p)));
  for (const r of [help, helpCommand]) {
    assert.equal(r.status, 0, show(r));
    assert.match(r.stdout, /^pith — /);
    assert.match(r.stdout, /usage:\n\s+pith serve/);
    assert.equal(r.stderr, "", show(r));
  }
  assert.equal(version.status, 0, show(version));
  assert.match(version.stdout, /^pith \d+\.\d+\.\d+\n$/);
  assert.equal(version.stderr, "");
  assert.deepEqual(readdirSync(p.home), [], "--help must not create anything under PITH_HOME");
  assert.deepEqual(readdirSync(p.cwd), []);
});

test("usage errors exit 2: one line saying what is wrong, then the command's own usage (12 lines at most), nothing on stdout", async (t) => {
  const p = places(t);
  const cases = [["frobnicate"], ["tree"], ["context"], ["tree", "a.jsonl", "b.jsonl"], ["--mode", "json"], ["-p"], ["serve", "--port", "x"], ["list", "--rotate"]];
  const runs = await Promise.all(cases.map((a) => pith(a, p)));
  runs.forEach((r, i) => {
    assert.equal(r.status, 2, `${cases[i].join(" ")}: ${show(r)}`);
    assert.equal(r.stdout, "", show(r));
    assert.match(r.stderr, /^pith: [^\n]+\n/);
    assert.ok(r.stderr.trimEnd().split("\n").length <= 12, `${cases[i].join(" ")}: at most 12 lines: ${show(r)}`);
  });
  // no command to show the usage of: the commands in a few lines (test/cli/keeps-its-word.test.ts)
  assert.match(runs[0].stderr, /unknown command: frobnicate\nusage:\n {2}pith serve [^\n]*\n[\s\S]*\nRun pith --help/);
  for (const i of [1, 2, 3]) assert.match(runs[i].stderr, new RegExp(`\nusage: pith ${cases[i][0]} <session>`), show(runs[i]));
  assert.match(runs[4].stderr, /^pith: a prompt is needed\nusage: pith --mode json /);
  assert.match(runs[5].stderr, /^pith: a prompt is needed\nusage: pith -p "prompt"/);
  assert.match(runs[6].stderr, /^pith: bad --port: x\nusage: pith serve /);
  assert.match(runs[7].stderr, /^pith: list does not take --rotate\nusage: pith list /);
});

test("<command> --help and -h print that command's own help (shorter than pith --help), exit 0", async (t) => {
  const p = places(t);
  const commands = [["serve"], ["--mode", "rpc"], ["--mode", "json"], ["--mode", "text"], ["-p"], ["acp"], ["demo"], ["tree"], ["context"], ["list"], ["store", "import"], ["store", "export"], ["token"], ["models"]];
  const full = await pith(["--help"], p);
  const lines = [...commands.map((c) => [...c, "--help"]), ["-h", "tree"], ["serve", "-h"], ["-p", "-h"]];
  const runs: Run[] = [];
  // a few at a time: each is a node start-up, and the machine may be busy
  for (let i = 0; i < lines.length; i += 4) runs.push(...(await Promise.all(lines.slice(i, i + 4).map((a) => pith(a, p)))));
  runs.forEach((r, i) => {
    const c = lines[i].join(" ");
    assert.equal(r.status, 0, `${c}: ${show(r)}`);
    assert.equal(r.stderr, "", `${c}: ${show(r)}`);
    assert.match(r.stdout, /^usage: pith /, `${c}: ${show(r)}`);
    assert.ok(r.stdout.split("\n").length < full.stdout.split("\n").length, `${c}: shorter than pith --help`);
  });
  assert.match(runs[7].stdout, /^usage: pith tree <session> \[--json\]\n/);
  assert.equal(runs[14].stdout, runs[7].stdout, "-h is --help");
  assert.equal(runs[15].stdout, runs[0].stdout);
  assert.equal(runs[16].stdout, runs[3].stdout, "-p is --mode text");
  assert.deepEqual(readdirSync(p.home), [], "help creates nothing");
});

test("an unknown or misspelt option, or a bad value for a sandbox option, is a usage error (exit 2), not silently ignored", async (t) => {
  const p = places(t);
  const cases: [string[], RegExp][] = [
    [["serve", "--stor", "x"], /unknown option: --stor/],
    [["serve", "--store", "x"], /bad --store: x/],
    [["--mode", "rpc", "--sandbx", "off"], /unknown option: --sandbx/],
    [["--mode", "rpc", "--sandbox", "none"], /bad --sandbox: none/],
    [["serve", "--sandbox-network", "maybe"], /bad --sandbox-network: maybe/],
    [["--mode", "json", "--permission-mode", "yolo", "hi"], /bad --permission-mode: yolo/],
  ];
  const runs = await Promise.all(cases.map(([a]) => pith(a, p)));
  runs.forEach((r, i) => {
    assert.equal(r.status, 2, `${cases[i][0].join(" ")}: ${show(r)}`);
    assert.equal(r.stdout, "", show(r));
    assert.match(r.stderr, cases[i][1]);
    assert.match(r.stderr, /usage:/);
  });
});

test("demo: the offline demo in a scratch project of its own, then hints that work from any directory", async (t) => {
  const p = places(t);
  const run = await pith(["demo"], { ...p, env: { ANTHROPIC_API_KEY: "sk-not-used" } });
  assert.equal(run.status, 0, show(run));
  assert.deepEqual(readdirSync(p.cwd), [], "nothing written to the working directory");
  const project = /a scratch project, (\S+)\n/.exec(run.stdout)?.[1];
  assert.ok(project && existsSync(join(project, "notes.md")), show(run));
  t.after(() => rmSync(project, { recursive: true, force: true }));
  assert.match(run.stdout, /offline demo model/);
  assert.match(run.stdout, /ANTHROPIC_API_KEY or OPENAI_API_KEY/, "how to use a real model");
  assert.match(run.stdout, /✓ edit notes\.md\n/);
  assert.match(run.stdout, /Done: notes\.md now lists messages, compaction and branch summaries \(3 items\)\./);
  assert.doesNotMatch(run.stdout, /✗/, "no failed tool call");
  assert.ok(readFileSync(join(project, "notes.md"), "utf8").startsWith("# pith notes\n\nThings a session keeps:\n- messages\n- compaction\n- branch summaries\n\n## "), "the list tidied, the notes below it kept");
  // the demo model's small window: the first task compacts, and the demo says what it freed
  assert.match(run.stdout, /\n {2}… compacting the context \(threshold, [\d,]+ tokens\)\n {2}✓ compacted: [\d,]+ → [\d,]+ tokens\n/);
  const [file] = sessionFiles(p.home);
  const id = /pith tree (\S+) /.exec(run.stdout)?.[1];
  assert.equal(id?.length, 8, show(run));
  assert.ok(file.includes(id!), "the hint names the session");
  // the hint works from another directory
  const tree = await pith(["tree", id!], { cwd: "/", home: p.home });
  assert.equal(tree.status, 0, show(tree));
  assert.match(tree.stdout, /assistant: Done: notes\.md now lists/);
});

test("logs go to stderr: JSON lines when piped, human lines when asked (PITH_LOG_FORMAT=pretty); stdout stays the reply", async (t) => {
  const p = places(t);
  const [json, pretty] = await Promise.all([pith(["-p", "hi", "--log-level", "debug"], p), pith(["-p", "hi", "--log-level", "debug"], { ...p, env: { PITH_LOG_FORMAT: "pretty" } })]);
  for (const r of [json, pretty]) {
    assert.equal(r.status, 0, show(r));
    assert.match(r.stdout, /^Hello! I'm pith's offline demo model\./);
    assert.equal(r.stdout.split("\n").length, 2, "one line of reply");
  }
  const logs = json.stderr
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { level: number; msg: string });
  assert.ok(logs.some((l) => l.level === 40 && /offline/.test(l.msg)), json.stderr);
  assert.doesNotMatch(pretty.stderr, /"level":/);
  assert.match(pretty.stderr, /^\d\d:\d\d:\d\d WARN  no model configured/m);
});

test("tree FILE prints the tree; --json prints just that tree as JSON, leafId included; an id or its 8-character prefix works too", async (t) => {
  const { cwd, home, file, id } = await storedSession(t);
  const before = readFileSync(file);
  const s = SessionFile.open(file, { readOnly: true });
  const tree = s.tree();
  s.close();

  const [text, json, rel, byId, byPrefix, ctxFile, ctxPrefix, short, unknown] = await fewAtATime([
    () => pith(["tree", file], { cwd, home }),
    () => pith(["tree", file, "--json"], { cwd, home }),
    // a relative path, from the file's directory
    () => pith(["tree", file.split("/").pop()!, "--json"], { cwd: join(home, "sessions", encodeCwd(cwd)), home }),
    () => pith(["tree", id], { cwd: "/", home }),
    () => pith(["tree", id.slice(0, 8)], { cwd: "/", home }),
    () => pith(["context", file], { cwd, home }),
    () => pith(["context", id.slice(0, 8)], { cwd: "/", home }),
    () => pith(["tree", id.slice(0, 5)], { cwd: "/", home }),
    () => pith(["context", "ffffffff"], { cwd: "/", home }),
  ]);
  assert.equal(byId.stdout, formatTree(tree), show(byId));
  assert.equal(byPrefix.stdout, formatTree(tree), show(byPrefix));
  assert.equal(ctxPrefix.status, 0, show(ctxPrefix));
  assert.equal(ctxPrefix.stdout, ctxFile.stdout);
  for (const r of [short, unknown]) {
    assert.equal(r.status, 1, show(r));
    assert.equal(r.stdout, "");
    assert.doesNotMatch(r.stderr, /-?\d{5}:|SessionNotFound/, "a sentence, not a code");
  }
  assert.match(short.stderr, /^pith: no session file \w{5}, and a session id prefix needs at least 8 characters\n$/);
  assert.match(unknown.stderr, /^pith: no session file ffffffff, and no session in .* has an id starting with it/);
  assert.equal(text.status, 0, show(text));
  assert.equal(text.stdout, formatTree(tree));
  assert.ok(text.stdout.endsWith(`leaf: ${tree.leafId}\n`));
  assert.equal(text.stderr, "");

  assert.equal(json.status, 0, show(json));
  assert.equal(json.stdout.indexOf("\n"), json.stdout.length - 1, "one line of JSON and nothing else");
  const parsed = JSON.parse(json.stdout) as TreeView;
  assert.equal(parsed.leafId, tree.leafId);
  assert.ok(parsed.entries.some((n) => n.id === parsed.leafId));
  assert.deepEqual(parsed, JSON.parse(JSON.stringify(tree)));
  assert.equal(json.stderr, "");
  assert.equal(rel.stdout, json.stdout, show(rel));

  assert.ok(readFileSync(file).equals(before), "tree is read-only");
  assert.ok(!existsSync(`${file}.lock`));
});

test("context of the Pi fixture (v1, migrated in memory): 914 messages, file untouched", { skip: fixtureSkip }, async (t) => {
  const p = places(t);
  const dir = tempDir(t, "pith-cli-fixture-");
  const file = copyFixture(dir);
  const before = readFileSync(file);

  const [json, text, tree] = await Promise.all([pith(["context", file, "--json"], p), pith(["context", file], p), pith(["tree", file, "--json"], p)]);
  assert.equal(json.status, 0, show(json));
  const ctx = JSON.parse(json.stdout) as SessionContext;
  assert.equal(ctx.messages.length, 914);
  assert.equal(ctx.entryIds.length, 914);

  assert.equal(text.status, 0, show(text));
  assert.match(text.stdout, /^model: .* messages: 914\n/);
  assert.equal(text.stdout.trimEnd().split("\n").length, 1 + 914);

  // (a v1 file has no ids: each read-only open migrates it in memory with fresh random ids, so
  // ids cannot be compared across two runs)
  assert.equal(tree.status, 0, show(tree));
  const view = JSON.parse(tree.stdout) as TreeView;
  assert.ok(view.entries.some((n) => n.id === view.leafId));
  assert.ok(view.entries.length >= 914);

  assert.ok(readFileSync(file).equals(before), "a read-only command changed the fixture copy");
  assert.deepEqual(readdirSync(dir), ["pi-session.jsonl"], "no backup, lock or temp file next to it");
  t.diagnostic(`context --json of the 1 MB fixture: ${json.ms.toFixed(0)} ms`);
});

test("list --json lists the stored session; --cwd filters by working directory", async (t) => {
  const { cwd, home, file } = await storedSession(t);
  const empty = places(t);
  const [all, here, elsewhere, text, none, noneJson, missing] = await Promise.all([
    pith(["list", "--json"], { cwd, home }),
    pith(["list", "--cwd", cwd, "--json"], { cwd: "/", home }),
    pith(["list", `--cwd=${join(cwd, "elsewhere")}`, "--json"], { cwd, home }),
    pith(["list"], { cwd, home }),
    pith(["list"], empty),
    pith(["list", "--json"], empty),
    pith(["list", "--cwd", "/nonexistent"], empty),
  ]);
  assert.equal(missing.status, 0, show(missing));
  assert.equal(missing.stdout, `no sessions of /nonexistent (no such directory) in ${join(empty.home, "sessions")}\n`);
  assert.equal(all.status, 0, show(all));
  const { sessions } = JSON.parse(all.stdout) as { sessions: SessionSummary[] };
  assert.equal(sessions.length, 1);
  assert.equal(sessions[0].file, file);
  assert.equal(sessions[0].cwd, cwd);
  assert.equal(sessions[0].messageCount, 6);
  assert.equal(sessions[0].firstMessage, "What does package.json say about the tests?");

  assert.deepEqual((JSON.parse(here.stdout) as { sessions: SessionSummary[] }).sessions.map((s) => s.file), [file], show(here));
  assert.deepEqual(JSON.parse(elsewhere.stdout), { sessions: [] });

  assert.equal(text.status, 0, show(text));
  assert.ok(text.stdout.includes(file));
  assert.equal(text.stderr, "");

  assert.equal(none.status, 0, show(none));
  assert.equal(none.stdout, `no sessions in ${join(empty.home, "sessions")}\n`);
  assert.deepEqual(JSON.parse(noneJson.stdout), { sessions: [] });
});

test("a file that is not a session: exit 1, NotASession on stderr, the file untouched", async (t) => {
  const p = places(t);
  const dir = tempDir(t, "pith-cli-junk-");
  const binary = Buffer.alloc(4096);
  for (let i = 0; i < binary.length; i++) binary[i] = (i * 131 + 7) % 256;
  const cases: Record<string, Buffer | string> = {
    "notes.txt": "just some notes\nnot json at all\n",
    "empty.jsonl": "",
    "binary.bin": binary,
    "nul.jsonl": Buffer.from([0, 0, 0, 10, 0]),
    "array.json": "[1,2,3]\n",
    "object.json": '{"hello":"world"}\n',
    "entry-first.jsonl": '{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2024-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}\n',
    "header-without-id.jsonl": '{"type":"session","version":3,"timestamp":"2024-01-01T00:00:00.000Z","cwd":"/"}\n',
  };
  for (const [name, content] of Object.entries(cases)) writeFileSync(join(dir, name), content);
  mkdirSync(join(dir, "a-directory.jsonl"));
  const names = [...Object.keys(cases), "a-directory.jsonl"];

  // tree for every case; context (same open path) for a few
  const runs = [...names.map((n) => ["tree", n]), ...["notes.txt", "empty.jsonl", "binary.bin"].map((n) => ["context", n])];
  const results = await fewAtATime(runs.map(([command, name]) => () => pith([command, join(dir, name), "--json"], p)));
  results.forEach((r, i) => {
    const [command, name] = runs[i];
    const what = `${command} ${name}: ${show(r)}`;
    assert.equal(r.status, 1, what);
    assert.equal(r.stdout, "", what);
    assert.match(r.stderr, /^pith: not a session file/, what);
    assert.equal(r.stderr.trimEnd().split("\n").length, 1, `one line of error, no stack trace: ${what}`);
  });
  for (const [name, content] of Object.entries(cases)) assert.ok(readFileSync(join(dir, name)).equals(Buffer.from(content)), `${name} was changed`);
  assert.deepEqual(readdirSync(dir).sort(), [...names].sort(), "no lock, backup or temp file created");

  const missing = await pith(["tree", join(dir, "missing.jsonl")], p);
  assert.equal(missing.status, 1, show(missing));
  assert.match(missing.stderr, /^pith: no such session file: /);
  assert.equal(missing.stdout, "");
});

test("a torn last line: tree still works, the warning goes to stderr, stdout stays pure JSON", async (t) => {
  const { cwd, home, file } = await storedSession(t);
  writeFileSync(file, readFileSync(file, "utf8") + '{"type":"message","id":"deadbeef","parentId":');
  const before = readFileSync(file);
  const r = await pith(["tree", file, "--json"], { cwd, home });
  assert.equal(r.status, 0, show(r));
  const tree = JSON.parse(r.stdout) as TreeView;
  assert.ok(!tree.entries.some((n) => n.id === "deadbeef"));
  const logs = r.stderr
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { kind?: string; msg: string });
  assert.ok(logs.some((l) => l.kind === "torn-line"), r.stderr);
  assert.ok(readFileSync(file).equals(before), "tree must not repair the file");
});

test("output cut short by a closed pipe (`pith tree f | head -1`) ends quietly", async (t) => {
  const p = places(t);
  const s = SessionFile.create({ cwd: p.cwd, sessionsDir: join(p.home, "sessions") });
  for (let i = 0; i < 3000; i++) s.appendMessage({ role: "user", content: `message number ${i} with a little text to make the line longer`, timestamp: i });
  s.close();
  const child = spawn(BIN, ["tree", s.file], { cwd: p.cwd, env: userEnv(p.home), stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdout.once("data", () => child.stdout.destroy());
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on("close", (c, sig) => resolve([c, sig])));
  assert.deepEqual({ code, signal, stderr }, { code: 0, signal: null, stderr: "" });
});

test("start-up time of bin/pith (measured, not asserted)", async (t) => {
  const stale = staleDist();
  if (stale.length > 0) t.diagnostic(`dist/ is older than src/ for ${stale.join(", ")}: these tests ran the old build (npm run build)`);
  const p = places(t);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await pith(["--version"], p);
    assert.equal(r.status, 0, show(r));
    times.push(r.ms);
  }
  times.sort((a, b) => a - b);
  const hi = await pith(["-p", "hi"], p);
  assert.equal(hi.status, 0, show(hi));
  t.diagnostic(`bin/pith --version: median ${times[2].toFixed(0)} ms (min ${times[0].toFixed(0)}, max ${times[4].toFixed(0)}); -p hi (offline): ${hi.ms.toFixed(0)} ms; node ${process.version}`);
});

test(
  "a named pipe (FIFO) given as the file is refused, not waited on forever",
  async (t) => {
    const p = places(t);
    const fifo = join(tempDir(t, "pith-cli-fifo-"), "session.jsonl");
    const mk = spawn("mkfifo", [fifo], { stdio: "ignore" });
    const made = await new Promise<number | null>((resolve) => {
      mk.on("error", () => resolve(null));
      mk.on("close", resolve);
    });
    if (made !== 0) return t.skip("mkfifo is not available");
    const child = spawn(BIN, ["tree", fifo], { cwd: p.cwd, env: userEnv(p.home), stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    // generous: bin/pith alone can take 1.5 s to start on a busy machine; waiting forever is the bug
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on("close", (c, sig) => resolve([c, sig])));
    clearTimeout(timer);
    assert.equal(signal, null, "still waiting on the FIFO after 15 s");
    assert.equal(code, 1);
    assert.match(stderr, /^pith: not a session file/);
  },
);

test("serve on a port already in use says so and exits 1, without a stack trace", async (t) => {
  const { createServer } = await import("node:net");
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  t.after(() => blocker.close());
  const port = (blocker.address() as { port: number }).port;
  const p = places(t);
  const r = await pith(["serve", "--port", String(port), "--token", "tok-0123456789abcdef"], p);
  assert.equal(r.status, 1, show(r));
  // which port, and how to pick another, said once (node's message repeats its code)
  assert.equal(r.stderr.split("\n").filter((l) => !l.startsWith("{")).join("\n"), `pith: cannot listen on 127.0.0.1:${port}: port ${port} is already taken (another pith serve?); pick another with --port N (--port 0: any free port)\n`);
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  assert.equal(r.stdout, "");
});
