// pith's own reads of project files: the project's `.pith/settings.json`, a lock beside a session
// file and the user's own settings are read by the daemon itself, on its event loop. A FIFO there
// (the model's `mkfifo .pith/settings.json`) would stall every session and client for ever, a link
// to /dev/zero (a repository can ship one) would be read until the daemon dies of memory. Through
// the real daemon: each is skipped (or refused) with a warning naming the file, and the daemon
// keeps answering, before and after, and after a restart in that directory.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, openSync, closeSync, ftruncateSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { checkDist, FLOW_SETTINGS, RpcError, startRpcDaemon, writeSettings, type RpcDaemon } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const hasMkfifo = spawnSync("mkfifo", ["--version"], { stdio: "ignore" }).status === 0;
const noFifo = hasMkfifo ? false : "mkfifo is missing (Debian package coreutils)";

function mkfifo(path: string): void {
  execFileSync("mkfifo", [path]);
  assert.ok(lstatSync(path).isFIFO());
}

/** A daemon started in `cwd` (its own startup reads that directory's settings too), initialized. */
async function daemon(t: TestContext, home: string, cwd: string): Promise<RpcDaemon> {
  checkDist(t);
  const d = startRpcDaemon(t, { home, fake, cwd, env: { PITH_LOG_LEVEL: "warn" } });
  await d.peer.initialize();
  return d;
}

async function stop(d: RpcDaemon): Promise<void> {
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
}

/** The daemon still serves another session: a prompt there runs and getState answers. */
async function stillServes(d: RpcDaemon, elsewhere: string): Promise<void> {
  const other = await d.peer.request("createSession", { cwd: elsewhere });
  fake.enqueue(textReply("still here"));
  await d.peer.runPrompt(other.sessionId, "hello");
  const state = await d.peer.request("getState", { sessionId: other.sessionId });
  assert.equal(state.sessionId, other.sessionId);
}

/** A project whose `.pith/settings.json` is made by `plant`; the daemon runs in it, a session is made there. */
async function plantedSettings(t: TestContext, plant: (pithDir: string, file: string) => void, why: RegExp, shown?: (cwd: string) => string): Promise<void> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  const elsewhere = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const pithDir = join(cwd, ".pith");
  const file = join(pithDir, "settings.json");
  plant(pithDir, file);

  for (const round of ["first start", "restart"]) {
    const d = await daemon(t, home, cwd);
    const s = await d.peer.request("createSession", { cwd });
    assert.ok(s.sessionId, `${round}: the session in that project is made`);
    const { warnings } = await d.peer.request("getSettings", { cwd });
    const w = warnings?.find((x: { file: string; key: string }) => x.file === file);
    assert.ok(w, `${round}: getSettings lists the skipped file: ${JSON.stringify(warnings)}`);
    assert.equal(w.key, "*", "the whole file, not one key");
    assert.match(w.message, why);
    assert.ok(w.message.includes(shown ? shown(cwd) : file), w.message);
    await stillServes(d, elsewhere);
    assert.ok(d.stderr.includes(file) && why.test(d.stderr), `${round}: the warning is logged:\n${d.stderr}`);
    assert.deepEqual(d.peer.violations, []);
    await stop(d);
  }
}

test("a FIFO at .pith/settings.json (the model's mkfifo) is skipped with a warning; the daemon keeps answering, after a restart too", { skip: noFifo }, async (t) => {
  await plantedSettings(t, (dir, file) => {
    mkdirSync(dir);
    mkfifo(file);
  }, /is a FIFO/);
});

test("a repository's .pith/settings.json -> /dev/zero is never followed: skipped with a warning, the daemon stays up", async (t) => {
  await plantedSettings(t, (dir, file) => {
    mkdirSync(dir);
    symlinkSync("/dev/zero", file);
  }, /is a symbolic link/);
  assert.ok(statSync("/dev/zero").isCharacterDevice(), "the link's target is left alone");
});

test("a .pith that is a link (to a folder outside the project holding a settings.json) is not read through", async (t) => {
  const outside = tempDir(t);
  writeFileSync(join(outside, "settings.json"), JSON.stringify({ maxTurns: 3 }));
  await plantedSettings(t, (dir) => symlinkSync(outside, dir), /is a symbolic link/, (cwd) => join(cwd, ".pith"));
});

test("a device node at .pith/settings.json (a zero device, not a link) is skipped", { skip: process.getuid?.() === 0 ? false : "making a device node needs root" }, async (t) => {
  await plantedSettings(t, (dir, file) => {
    mkdirSync(dir);
    execFileSync("mknod", [file, "c", "1", "5"]);
  }, /is a character device/);
});

test("a 50 MB .pith/settings.json is skipped without being read", async (t) => {
  await plantedSettings(t, (dir, file) => {
    mkdirSync(dir);
    const fd = openSync(file, "w");
    ftruncateSync(fd, 50 * 1024 * 1024); // sparse: 50 MB to the reader, nothing on disk
    closeSync(fd);
  }, /is larger than 1 MiB/);
});

test("a project's own regular .pith/settings.json still applies", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  mkdirSync(join(cwd, ".pith"));
  writeFileSync(join(cwd, ".pith", "settings.json"), JSON.stringify({ appendSystemPrompt: "PROJECT-SETTINGS-APPLIED-5151" }));
  const d = await daemon(t, home, cwd);
  const s = await d.peer.request("createSession", { cwd });
  const from = fake.requests.length;
  fake.enqueue(textReply("ok"));
  await d.peer.runPrompt(s.sessionId, "hi");
  assert.ok(JSON.stringify(fake.requests[from]?.body.system).includes("PROJECT-SETTINGS-APPLIED-5151"));
  const { warnings } = await d.peer.request("getSettings", { cwd });
  assert.equal(warnings, undefined);
  await stop(d);
});

/** A session file of its own in `dir` (a header line), as a `--session FILE` in the project would be. */
function sessionFileIn(dir: string, cwd: string): string {
  const file = join(dir, "notes.jsonl");
  writeFileSync(file, JSON.stringify({ type: "session", version: 3, id: randomUUID(), timestamp: new Date().toISOString(), cwd }) + "\n");
  return file;
}

for (const [what, plant] of [
  ["a FIFO", (lock: string) => mkfifo(lock)],
  ["a link to /dev/zero", (lock: string) => symlinkSync("/dev/zero", lock)],
] as const) {
  test(`a lock file that is ${what} beside a session file in the project neither blocks nor is followed: it is no owner, so it is taken over`, { skip: what === "a FIFO" ? noFifo : false }, async (t) => {
    const home = tempDir(t);
    const cwd = tempDir(t);
    const elsewhere = tempDir(t);
    writeSettings(home, FLOW_SETTINGS);
    const file = sessionFileIn(cwd, cwd);
    plant(`${file}.lock`);
    const d = await daemon(t, home, home);
    const opened = await d.peer.request("openSession", { sessionFile: file });
    assert.ok(opened.sessionId, "the session opens");
    assert.ok(lstatSync(`${file}.lock`).isFile(), "the lock is now the daemon's own regular file");
    assert.ok(existsSync("/dev/zero") && statSync("/dev/zero").isCharacterDevice(), "nothing a link named was touched");
    fake.enqueue(textReply("written"));
    await d.peer.runPrompt(opened.sessionId, "hello");
    await stillServes(d, elsewhere);
    await stop(d);
  });
}

test("the user's own settings.json as a FIFO: the daemon starts and answers; sessions are refused with an error naming the file (never run without the user's settings)", { skip: noFifo }, async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  const settings = join(home, "settings.json");
  mkfifo(settings);
  const d = await daemon(t, home, cwd);
  await assert.rejects(
    () => d.peer.request("createSession", { cwd }),
    (err: unknown) => err instanceof RpcError && err.code === -32602 && err.message.includes(settings) && /is a FIFO/.test(err.message),
  );
  await assert.rejects(
    () => d.peer.request("getSettings", {}),
    (err: unknown) => err instanceof RpcError && err.code === -32602 && err.message.includes(settings),
  );
  assert.ok(d.stderr.includes(settings), `the error is logged:\n${d.stderr}`);
  // the user replaces it with a real file: the same daemon uses it
  execFileSync("rm", [settings]);
  writeSettings(home, FLOW_SETTINGS);
  const s = await d.peer.request("createSession", { cwd });
  assert.ok(s.sessionId);
  assert.deepEqual(d.peer.violations, []);
  await stop(d);
});
