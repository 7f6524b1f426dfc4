// The sandbox's mounts come from paths pith checked itself, never through a link the model or a
// repository made. bwrap follows links in a bind's source and destination: with `--ro-bind
// <cwd>/.pith <cwd>/.pith`, a `.pith -> ../../.pith` (any relative path to $PITH_HOME) mounted
// pith's real home over the tmpfs that hid it, token and transcripts readable; `.pith ->
// .../proc` showed the host's /proc; a writable root the model could turn into a link was bound
// through it, writable. Each case runs through the real daemon (fake model, real bubblewrap), in
// a layout like a user's: $PITH_HOME = <base>/u/.pith, the project <base>/u/a/b, outside /tmp
// (whose private copy in the sandbox would hide a home under it anyway).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import { sandboxAvailable } from "../../src/tools/sandbox.js";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, poll, startRpcDaemon, writeSettings, type RpcDaemon } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { modelCalls } from "../support/model-tools.js";

const probe = sandboxAvailable();
const skip = probe.ok ? false : `${probe.reason}; skipping the sandbox tests (CI installs the Debian package bubblewrap)`;

const TOKEN = "home-token_0123456789abcdefghijklmnop";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

interface Layout {
  base: string;
  home: string;
  cwd: string;
}

function layout(t: TestContext, settings: object = {}): Layout {
  const base = realpathSync(mkdtempSync("/var/tmp/pith-mounts-"));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const home = join(base, "u", ".pith");
  const cwd = join(base, "u", "a", "b");
  mkdirSync(cwd, { recursive: true });
  writeSettings(home, { ...FLOW_SETTINGS, ...settings });
  writeFileSync(join(home, "token"), TOKEN, { mode: 0o600 });
  return { base, home, cwd };
}

async function session(t: TestContext, l: Layout): Promise<{ d: RpcDaemon; sessionId: string; sessionFile: string; bash: (command: string) => ReturnType<typeof modelCalls> }> {
  const d = startRpcDaemon(t, { home: l.home, fake, cwd: l.cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd: l.cwd });
  assert.equal(s.state.sandbox, "workspace-write");
  return { d, sessionId: s.sessionId, sessionFile: s.sessionFile, bash: (command) => modelCalls(d.peer, fake, s.sessionId, "bash", { command }) };
}

async function stop(d: RpcDaemon): Promise<void> {
  assert.deepEqual(d.peer.violations, []);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
}

/** What a command prints trying every way to pith's home: through .pith, by its path, the transcript. */
function lookForHome(l: Layout, sessionFile: string): string {
  return `cat .pith/token; cat ${l.home}/token; ls -AR ${l.home}; ls -AR .pith/; cat ${sessionFile} 2>/dev/null; echo looked`;
}

function assertHomeHidden(text: string, sessionId: string): void {
  assert.match(text, /looked/, text);
  assert.ok(!text.includes(TOKEN), `the token leaked:\n${text}`);
  // the hidden home is an empty tmpfs (a command may write there; it vanishes with the command):
  // none of pith's files in it
  assert.doesNotMatch(text, /^token$|\.jsonl/m, `pith's home is listed:\n${text}`);
  assert.ok(!text.includes(sessionId), `a transcript leaked:\n${text}`);
  assert.doesNotMatch(text, /"type":"session"/, `a transcript leaked:\n${text}`);
}

test("the model links .pith to pith's home (ln -s ../../.pith .pith): the next command sees no token, no transcript", { skip }, async (t) => {
  const l = layout(t);
  const { d, sessionId, sessionFile, bash } = await session(t, l);
  // refused now (there is no .pith, so an empty read-only one covers its place); it worked before
  await bash("ln -s ../../.pith .pith; echo tried");
  const look = await bash(lookForHome(l, sessionFile));
  assertHomeHidden(look.text, sessionId);
  const write = await bash("echo x > .pith/settings.json; echo y > after.txt && echo wrote");
  assert.match(write.text, /wrote/, write.text);
  assert.ok(JSON.parse(readFileSync(join(l.home, "settings.json"), "utf8")).models, "pith's settings untouched");
  assert.equal(readFileSync(join(l.cwd, "after.txt"), "utf8"), "y\n", "the cwd is still writable");
  await stop(d);
});

test("a repository ships .pith -> pith's home, or -> the cwd itself: nothing of the home shows, bash runs, writes in the cwd work", { skip }, async (t) => {
  const l = layout(t);
  symlinkSync(relative(l.cwd, l.home), join(l.cwd, ".pith"));
  const { d, sessionId, sessionFile, bash } = await session(t, l);
  const look = await bash(lookForHome(l, sessionFile));
  assertHomeHidden(look.text, sessionId);
  await stop(d);

  // `.pith -> .`: it made the whole cwd read-only for the file tools, and bash bound the cwd read-only over itself
  const l2 = layout(t);
  symlinkSync(".", join(l2.cwd, ".pith"));
  const s2 = await session(t, l2);
  const run = await s2.bash("echo made > by-bash.txt && echo wrote");
  assert.equal(run.isError, false, run.text);
  assert.equal(readFileSync(join(l2.cwd, "by-bash.txt"), "utf8"), "made\n");
  const written = await modelCalls(s2.d.peer, fake, s2.sessionId, "write", { path: "by-tool.txt", content: "tool\n" });
  assert.equal(written.isError, false, written.text);
  assert.equal(readFileSync(join(l2.cwd, "by-tool.txt"), "utf8"), "tool\n");
  await stop(s2.d);
});

test("a .pith that leads to /proc does not show the host's /proc (the daemon's environment); bash runs and writes in the cwd", { skip }, async (t) => {
  const l = layout(t);
  symlinkSync(relative(l.cwd, "/proc"), join(l.cwd, ".pith"));
  const { d, bash } = await session(t, l);
  const r = await bash(`cat .pith/${d.pid}/environ | tr '\\0' '\\n'; ls .pith/${d.pid} >/dev/null 2>&1 && echo daemon-visible; echo z > z.txt && echo wrote`);
  assert.equal(r.isError, false, r.text);
  assert.doesNotMatch(r.text, /test-key|ANTHROPIC/, `the daemon's environment leaked:\n${r.text}`);
  assert.doesNotMatch(r.text, /daemon-visible/, r.text);
  assert.match(r.text, /wrote/);
  assert.equal(readFileSync(join(l.cwd, "z.txt"), "utf8"), "z\n");
  await stop(d);
});

test("a project without .pith: the model cannot make one, by bash or by the write tool", { skip }, async (t) => {
  const l = layout(t);
  const { d, sessionId, bash } = await session(t, l);
  const r = await bash("mkdir .pith/x; echo '{}' > .pith/settings.json; rmdir .pith; mv .pith elsewhere; ln -s ../../.pith .pith; echo w > ok.txt && echo wrote");
  assert.match(r.text, /Read-only file system/, r.text);
  assert.match(r.text, /wrote/, r.text);
  // the mount point bwrap made for the placeholder is gone with the command: the project as it was
  assert.equal(existsSync(join(l.cwd, ".pith")), false, "no .pith made, not even an empty one");
  assert.equal(existsSync(join(l.cwd, "elsewhere")), false);
  assert.deepEqual(readdirSync(l.cwd), ["ok.txt"]);
  const tool = await modelCalls(d.peer, fake, sessionId, "write", { path: ".pith/settings.json", content: "{}" });
  assert.equal(tool.isError, true, tool.text);
  assert.equal(existsSync(join(l.cwd, ".pith")), false);
  await stop(d);
});

test("writable roots: one that is a link to pith's home is skipped with a warning; one that does not exist yet is never bound through a link made later", { skip }, async (t) => {
  const base = realpathSync(mkdtempSync("/var/tmp/pith-mounts-"));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const shared = join(base, "shared");
  mkdirSync(shared);
  const l = layout(t, {});
  const linked = join(l.cwd, "out");
  const later = join(l.cwd, "later");
  writeSettings(l.home, { ...FLOW_SETTINGS, sandbox: { writableRoots: [shared, linked, later] } });
  symlinkSync(relative(l.cwd, l.home), linked);
  const { d, sessionId, bash } = await session(t, l);

  const control = await bash(`echo ok > ${shared}/f && echo shared-ok`);
  assert.match(control.text, /shared-ok/, `a real writable root still works:\n${control.text}`);
  const made = await bash("ln -s ../../.pith later && echo linked");
  assert.match(made.text, /linked/, made.text);
  const r = await bash(`cat out/token later/token; echo x > out/new.txt; echo x > later/settings.json; ls -A out/ later/; echo looked`);
  assertHomeHidden(r.text, sessionId);
  assert.equal(existsSync(join(l.home, "new.txt")), false, "nothing written into pith's home");
  assert.doesNotMatch(readFileSync(join(l.home, "settings.json"), "utf8"), /^x$/m);
  assert.ok(JSON.parse(readFileSync(join(l.home, "settings.json"), "utf8")).sandbox, "pith's settings untouched");
  // both were skipped when the session started, and the daemon's log says why
  await poll(() => (/writableRoots.*later.*does not exist/.test(d.stderr) ? true : undefined), "the warning for the missing root");
  assert.match(d.stderr, /writableRoots.*out.*symbolic link/, d.stderr);
  await stop(d);
});
