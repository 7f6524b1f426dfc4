// The CLI does what its help and the README say, through the real bin/pith: --permission-mode ask
// asks on a terminal (a pseudo-terminal here) and is refused up front without one; an unknown
// option on a bare `pith` shows the general usage, not the demo's; `pith list` shows the ids and
// the 8-character prefix tree and --session take; the demo's help says where the demo goes.
// (A compaction's result line in -p: demo-compaction.test.ts; EADDRINUSE: test/cli.test.ts.)
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import "../support/fresh-dist.js"; // importing it builds dist/ when it is stale
import { tempDir } from "../support/tmp.js";
import { SessionFile } from "../../src/session/index.js";
import { SESSION_SETTINGS_TYPE } from "../../src/session/types.js";
import { BIN, runAsUser, userEnv } from "../support/user-run.js";

type T = Parameters<typeof tempDir>[0];

function places(t: T): { cwd: string; home: string } {
  return { cwd: realpathSync(tempDir(t, "pith-word-cwd-")), home: realpathSync(tempDir(t, "pith-word-home-")) };
}

/** bin/pith on a pseudo-terminal (Python's pty): answers each permission question in turn; all the terminal showed, and the exit code. */
const PTY = `
import os, pty, select, sys, time
cwd, answers, args = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    os.chdir(cwd)
    os.execv(args[0], args)
out, asked, end = b"", 0, time.time() + 40
while time.time() < end:
    if fd in select.select([fd], [], [], 0.5)[0]:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
        while out.count(b"[d]eny: ") > asked and asked < len(answers):
            os.write(fd, (answers[asked] + "\\n").encode())
            asked += 1
sys.stdout.write(out.decode("utf8", "replace"))
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
`;

function onTerminal(args: string[], answers: string[], p: { cwd: string; home: string }): Promise<{ code: number | null; screen: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", ["-c", PTY, p.cwd, answers.join(","), BIN, ...args], { env: userEnv(p.home), stdio: ["ignore", "pipe", "inherit"] });
    let screen = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (screen += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, screen }));
  });
}

test("-p --permission-mode ask on a terminal asks before each change: allow runs it, deny refuses it", { timeout: 60_000 }, async (t) => {
  const p = places(t);
  // in an empty folder the demo model lists it (read-only: not asked), writes notes.md, then runs bash
  const r = await onTerminal(["-p", "--permission-mode", "ask", "Tidy up the notes"], ["a", "d"], p);
  assert.match(r.screen, /pith: allow write notes\.md\? \[a\]llow, al\[l\]ways, \[d\]eny: /);
  assert.match(r.screen, /pith: allow bash wc -l notes\.md/);
  assert.equal((r.screen.match(/\[d\]eny: /g) ?? []).length, 2, r.screen);
  assert.match(readFileSync(join(p.cwd, "notes.md"), "utf8"), /^# Notes\n/, "the allowed write ran");
  assert.match(r.screen, /✗ bash .*denied/, "the denied bash did not");
});

test("--permission-mode ask without a terminal is refused up front, saying why (exit 2, nothing run)", async (t) => {
  const p = places(t);
  const [text, json] = await Promise.all([runAsUser(["-p", "--permission-mode", "ask", "Tidy up the notes"], p), runAsUser(["--mode", "json", "--permission-mode", "ask", "hi"], p)]);
  for (const r of [text, json]) {
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^pith: --permission-mode ask needs a terminal to ask on.*; use --permission-mode auto or readonly\n/);
    assert.equal(r.stdout, "");
  }
  assert.deepEqual(readdirSync(p.cwd), []);
  assert.ok(!existsSync(join(p.home, "sessions")), "no session made");
});

test("permissionMode ask in the settings file is held to the same word: refused without a terminal, asked on one", { timeout: 60_000 }, async (t) => {
  const p = places(t);
  writeFileSync(join(p.home, "settings.json"), JSON.stringify({ permissionMode: "ask" }));
  const [text, json] = await Promise.all([runAsUser(["-p", "Tidy up the notes"], p), runAsUser(["--mode", "json", "hi"], p)]);
  for (const r of [text, json]) {
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^pith: permissionMode "ask" in your settings \(.*settings\.json\) needs a terminal to ask on.*; use --permission-mode auto or readonly\n/);
  }
  assert.deepEqual(readdirSync(p.cwd), []);
  // the flag overrides the file: auto runs without asking
  const auto = await runAsUser(["-p", "--permission-mode", "auto", "hi"], p);
  assert.equal(auto.status, 0, auto.stderr);
  // on a terminal, the settings' ask asks, as the flag does
  const r = await onTerminal(["-p", "Tidy up the notes"], ["d", "d"], p);
  assert.match(r.screen, /pith: allow write notes\.md\? \[a\]llow, al\[l\]ways, \[d\]eny: /, r.screen);
});

test("a session whose own permission mode is ask: refused at once without a terminal, readonly runs it, asked on one", { timeout: 60_000 }, async (t) => {
  const p = places(t);
  const made = await runAsUser(["-p", "hi"], p);
  assert.equal(made.status, 0, made.stderr);
  const [dir] = readdirSync(join(p.home, "sessions"));
  const [name] = readdirSync(join(p.home, "sessions", dir));
  const file = join(p.home, "sessions", dir, name);
  // the mode set on the session (setPermissionMode, ACP's session/set_mode), as it is stored
  const s = SessionFile.open(file);
  s.appendBookkeeping(SESSION_SETTINGS_TYPE, { permissionMode: "ask" }, { sync: true });
  s.close();
  const id = /_([0-9a-f-]{36})\.jsonl$/.exec(name)![1];
  const started = Date.now();
  // one after the other: a session is open for writing in one process at a time
  const text = await runAsUser(["-p", "--session", id, "Tidy up the notes"], p);
  const json = await runAsUser(["--mode", "json", "--session", id, "Tidy up the notes"], p);
  for (const r of [text, json]) {
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`pith: session ${id.slice(0, 8)} asks before each change \\(its permission mode, set on the session, is ask\\) and nothing here can answer; run it with pith -p on a terminal, or with --permission-mode readonly`));
  }
  assert.ok(Date.now() - started < 20_000, "refused at once, not after the questions' grace period");
  assert.deepEqual(readdirSync(p.cwd), [], "nothing run");
  const readonly = await runAsUser(["-p", "--permission-mode", "readonly", "--session", id, "hi"], p);
  assert.equal(readonly.status, 0, readonly.stderr);
  const r = await onTerminal(["-p", "--session", id, "Tidy up the notes"], ["d", "d"], p);
  assert.match(r.screen, /pith: allow write notes\.md\? \[a\]llow, al\[l\]ways, \[d\]eny: /, r.screen);
});

test("a bare pith with an unknown or misplaced option: the general usage, not the demo's", async (t) => {
  const p = places(t);
  const [bogus, port] = await Promise.all([runAsUser(["--bogus"], p), runAsUser(["--port", "1"], p)]);
  for (const r of [bogus, port]) {
    assert.equal(r.status, 2);
    assert.match(r.stderr, /\nusage:\n {2}pith serve /);
    assert.match(r.stderr, /pith list \| tree <session>/);
    assert.doesNotMatch(r.stderr, /usage: pith demo/);
  }
  assert.match(bogus.stderr, /^pith: unknown option: --bogus\n/);
  assert.match(port.stderr, /^pith: --port goes with a command\n/);
});

test("pith list shows each session's id and the 8-character prefix tree takes; pith demo --help says where the demo goes", async (t) => {
  const p = places(t);
  const made = await runAsUser(["-p", "hi"], p);
  assert.equal(made.status, 0, made.stderr);
  const [list, help] = await Promise.all([runAsUser(["list"], p), runAsUser(["demo", "--help"], p)]);
  assert.equal(list.status, 0, list.stderr);
  const [dir] = readdirSync(join(p.home, "sessions"));
  const id = /_([0-9a-f-]{36})\.jsonl$/.exec(readdirSync(join(p.home, "sessions", dir))[0])![1];
  assert.match(list.stdout, /^id {8}.*first 8 characters/);
  assert.match(list.stdout, new RegExp(`\\n${id.slice(0, 8)}  \\S+ +2  hi\\n {10}${id}  `));
  const tree = await runAsUser(["tree", id.slice(0, 8)], p);
  assert.equal(tree.status, 0, tree.stderr);
  assert.match(help.stdout, /temporary directory \(pith-demo-XXXXXX\s+under \$TMPDIR, else \/tmp\)/);
  assert.doesNotMatch(help.stdout, /scratch project under \$PITH_HOME/);
});
