// The sandbox binds the directories it checked, not whatever their paths lead to by the time bwrap
// mounts them. Anything that can write a directory's parent can swap it for a link: another
// session's command whose cwd is the parent, or any of the user's processes. Before, the session's
// cwd was bound wherever its path led at each command (a link put there after the session started
// made `~/.ssh` the writable cwd), and a writable root checked with lstat could still be swapped
// between the check and bwrap's mount, which then bound the link's target writable. Now the cwd
// must still lead to the real directory the session started in (or the command is refused, and
// the file tools treat it as outside), and every bind is of a descriptor opened at the check.
// Each case runs through the real daemon (fake model, real bubblewrap), outside /tmp.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import { sandboxAvailable } from "../../src/tools/sandbox.js";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { modelCalls } from "../support/model-tools.js";

const probe = sandboxAvailable();
const skip = probe.ok ? false : `${probe.reason}; skipping the sandbox tests (CI installs the Debian package bubblewrap)`;

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

interface Layout {
  home: string;
  /** the session's cwd */
  cwd: string;
  /** a writable root beside the project */
  out: string;
  /** stands for ~/.ssh: nothing of a session may be written there */
  secret: string;
}

function layout(t: TestContext): Layout {
  const base = realpathSync(mkdtempSync("/var/tmp/pith-race-"));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const l = { home: join(base, "u", ".pith"), cwd: join(base, "u", "proj", "sub"), out: join(base, "u", "out"), secret: join(base, "u", "ssh") };
  for (const dir of [l.cwd, l.out, l.secret]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(l.secret, "authorized_keys"), "the user's key\n");
  writeSettings(l.home, { ...FLOW_SETTINGS, sandbox: { mode: "workspace-write", writableRoots: [l.out] } });
  return l;
}

async function session(t: TestContext, l: Layout) {
  const d = startRpcDaemon(t, { home: l.home, fake, cwd: l.cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd: l.cwd });
  assert.equal(s.state.sandbox, "workspace-write");
  t.after(() => drainFake(fake));
  return { d, sessionId: s.sessionId as string, bash: (command: string) => modelCalls(d.peer, fake, s.sessionId, "bash", { command }) };
}

function assertSecretUntouched(l: Layout): void {
  assert.deepEqual(readdirSync(l.secret), ["authorized_keys"], `nothing was written where the link led: ${readdirSync(l.secret).map((f) => f + ":" + readFileSync(join(l.secret, f), "utf8").split("\n").length).join(" ")}`);
  assert.equal(readFileSync(join(l.secret, "authorized_keys"), "utf8"), "the user's key\n");
}

test("the session's cwd swapped for a link after it started: bash is refused and the file tools call it outside; nothing lands where the link leads", { skip, timeout: 60_000 }, async (t) => {
  const l = layout(t);
  const { d, sessionId, bash } = await session(t, l);
  assert.match((await bash("echo before > before.txt && echo ran")).text, /ran/);

  // what a sibling session whose cwd is proj/ could run: `mv sub sub.moved; ln -s ../ssh sub`
  renameSync(l.cwd, `${l.cwd}.moved`);
  symlinkSync("../ssh", l.cwd);
  const swapped = await bash("echo owned >> authorized_keys; echo owned > marker; echo ran");
  assert.equal(swapped.isError, true, swapped.text);
  assert.match(swapped.text, /now leads to .*ssh, not to .*sub as when the session started/);
  assert.doesNotMatch(swapped.text, /ran/);
  const written = await modelCalls(d.peer, fake, sessionId, "write", { path: "marker", content: "owned\n" });
  assert.equal(written.isError, true, written.text);
  assert.match(written.text, /outside the working directory/);
  const edited = await modelCalls(d.peer, fake, sessionId, "edit", { path: "authorized_keys", oldText: "the user's key", newText: "owned" });
  assert.equal(edited.isError, true, edited.text);
  assertSecretUntouched(l);

  // put back, the session works again in its own directory
  rmSync(l.cwd);
  renameSync(`${l.cwd}.moved`, l.cwd);
  assert.match((await bash("cat before.txt && echo ran")).text, /before\nran/);
  d.endStdin();
  await d.waitExit();
});

/**
 * Swaps each directory for a link to `target` and back until stopped: a link for 4 ms, the
 * directory for 8 ms, so that some commands start with the directories in place and many
 * start across a swap.
 */
function startSwapping(t: TestContext, dirs: string[], target: string): () => Promise<number> {
  const script = `
    const { renameSync, symlinkSync, unlinkSync } = require("node:fs");
    const [target, ...dirs] = process.argv.slice(1);
    const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    let swaps = 0, stop = false;
    process.on("SIGTERM", () => { stop = true; });
    const loop = () => {
      for (let i = 0; i < 10 && !stop; i++) {
        for (const d of dirs) { renameSync(d, d + ".held"); symlinkSync(target, d); }
        sleep(4);
        for (const d of dirs) { unlinkSync(d); renameSync(d + ".held", d); }
        swaps++;
        sleep(8);
      }
      if (stop) { process.stdout.write(String(swaps)); process.exit(0); }
      setImmediate(loop);
    };
    loop();`;
  const child = spawn(process.execPath, ["-e", script, target, ...dirs], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
  const ended = new Promise<number>((resolve) => child.once("exit", () => resolve(Number(out))));
  t.after(() => child.kill("SIGKILL"));
  return async () => {
    child.kill("SIGTERM");
    return ended;
  };
}

/** Runs `n` commands that write in the cwd, the writable root and the secret while `dirs` are swapped for links to the secret. */
async function raceCommands(t: TestContext, l: Layout, dirs: string[], n: number): Promise<void> {
  const { d, bash } = await session(t, l);
  const stopSwapping = startSwapping(t, dirs, l.secret);
  let ran = 0;
  let refused = 0;
  for (let i = 0; i < n; i++) {
    const r = await bash(`echo owned >> marker; echo owned >> ${l.out}/marker; echo owned >> ${l.secret}/marker; echo ran`);
    if (r.isError) refused++;
    else if (/ran/.test(r.text)) ran++;
  }
  const swaps = await stopSwapping();
  t.diagnostic(`${n} commands while ${dirs.length === 1 ? "the writable root was" : "the cwd and the writable root were"} swapped ${swaps} times: ${ran} ran, ${refused} refused (bwrap or pith saw the swap)`);
  assert.ok(swaps > n, `the swapping went on throughout (${swaps} swaps)`);
  assert.ok(ran > 0, "some commands found the directories in place and ran");
  assertSecretUntouched(l);
  // what ran wrote into the real directories, where the session's work belongs
  assert.ok(existsSync(join(l.out, "marker")), "the commands that ran wrote in the writable root");
  d.endStdin();
  await d.waitExit();
}

// Bound by path, 20 of 150 such commands wrote into the secret: the root was checked as a
// directory, swapped for the link before bwrap resolved it, and bwrap bound the secret writable.
test("a writable root swapped for a link and back while commands start: no command can write where the link leads", { skip, timeout: 120_000 }, async (t) => {
  const l = layout(t);
  await raceCommands(t, l, [l.out], 60);
});

test("the cwd and a writable root swapped for links and back while commands start: every write lands in the checked directories, none where the links lead", { skip, timeout: 120_000 }, async (t) => {
  const l = layout(t);
  await raceCommands(t, l, [l.cwd, l.out], 40);
});
