// A caller's bad path is the caller's mistake: -32602 with a stable data.reason, never -32603
// with a raw file system message. And a deep cwd works: the folder name it is filed under stays
// within 255 bytes (a readable start and a hash), Pi's layout is kept where it fits, listing by
// cwd still finds exactly that cwd's sessions.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { test } from "node:test";
import { SessionFile } from "../../src/session/index.js";
import { encodeCwd, MAX_NAME_BYTES } from "../../src/session/paths.js";
import { installFor } from "../support/as-user.js";
import { BIN, daemonEnv, FLOW_SETTINGS, peerOverChild, startRpcDaemon, writeSettings, type RpcDaemon } from "../support/daemon-client.js";
import { rng } from "../support/random.js";
import { tempDir } from "../support/tmp.js";

async function daemon(t: Parameters<typeof tempDir>[0]): Promise<{ d: RpcDaemon; home: string; cwd: string }> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, cwd });
  await d.peer.initialize();
  t.after(async () => {
    d.endStdin();
    await d.waitExit();
  });
  return { d, home, cwd };
}

async function reason(d: RpcDaemon, method: string, params: object): Promise<string> {
  const e = await d.peer.expectError(method, params, -32602);
  assert.equal(typeof e.data?.reason, "string", JSON.stringify(e));
  return e.data.reason;
}

test("odd session files and cwds are -32602 with a stable reason", async (t) => {
  const { d, cwd } = await daemon(t);
  const dir = tempDir(t);
  const fifo = join(dir, "pipe.jsonl");
  execFileSync("mkfifo", [fifo]);
  const file = join(dir, "plain.txt");
  writeFileSync(file, "not a directory\n");

  assert.equal(await reason(d, "createSession", { cwd: "a\u0000b" }), "InvalidPath");
  assert.equal(await reason(d, "createSession", { cwd: join(cwd, "missing", "deeper") }), "CwdNotFound");
  assert.equal(await reason(d, "createSession", { cwd: file }), "NotADirectory");
  assert.equal(await reason(d, "createSession", { cwd: `/${"x".repeat(5000)}` }), "PathTooLong");
  assert.equal(await reason(d, "openSession", { sessionFile: "/proc/self/mem" }), "NotASession");
  assert.equal(await reason(d, "openSession", { sessionFile: "/dev/zero" }), "NotASession");
  assert.equal(await reason(d, "openSession", { sessionFile: fifo }), "NotASession");
  assert.equal(await reason(d, "openSession", { sessionFile: dir }), "NotASession");
  assert.equal(await reason(d, "openSession", { sessionFile: "x\u0000.jsonl" }), "InvalidPath");
  assert.equal(await reason(d, "openSession", { sessionFile: `/${"y".repeat(5000)}.jsonl` }), "PathTooLong");
  assert.equal(await reason(d, "listSessions", { cwd: "a\u0000b" }), "InvalidPath");
  assert.equal(await reason(d, "getSettings", { cwd: "a\u0000b" }), "InvalidPath");
  // the daemon is fine afterwards
  const s = await d.peer.request("createSession", { cwd });
  assert.equal(s.state.cwd, cwd);
  assert.deepEqual(d.peer.violations, []);
});

test("a 320-character cwd: the session is created, filed under a name of at most 255 bytes, and listed by its cwd only", async (t) => {
  const { d } = await daemon(t);
  const base = tempDir(t);
  const deep = join(base, "a".repeat(100), "b".repeat(100), "c".repeat(100));
  const sibling = join(base, "a".repeat(100), "b".repeat(100), "d".repeat(100));
  for (const p of [deep, sibling]) mkdirSync(p, { recursive: true });
  assert.ok(deep.length >= 320);
  const one = await d.peer.request("createSession", { cwd: deep });
  const two = await d.peer.request("createSession", { cwd: sibling });
  const folder = basename(dirname(one.sessionFile));
  assert.ok(Buffer.byteLength(folder) <= MAX_NAME_BYTES, folder);
  assert.notEqual(folder, basename(dirname(two.sessionFile)), "two deep cwds with one start get folders of their own");
  const listed = await d.peer.request("listSessions", { cwd: deep });
  assert.deepEqual(listed.sessions.map((s: { id: string }) => s.id), [one.sessionId]);
  const reopened = await d.peer.request("openSession", { sessionId: one.sessionId });
  assert.equal(reopened.state.cwd, deep);
});

test("encodeCwd: Pi's layout where it fits; otherwise at most 255 bytes of UTF-8, whole characters, a hash of the full path", () => {
  assert.equal(encodeCwd("/home/me/app"), "--home-me-app--");
  const r = rng(7);
  const alphabet = ["a", "/", "é", "中", "😀", "-", ":", "\\", "x"];
  const seen = new Map<string, string>();
  for (let i = 0; i < 2000; i++) {
    const len = 1 + r.int(400);
    let cwd = "/";
    while (cwd.length < len) cwd += r.pick(alphabet);
    const name = encodeCwd(cwd);
    assert.ok(Buffer.byteLength(name) <= MAX_NAME_BYTES, `${Buffer.byteLength(name)} bytes for ${cwd.length} chars`);
    assert.ok(!name.includes("\uFFFD") && Buffer.from(name).toString() === name, "no character cut in two");
    assert.ok(name.startsWith("--") && name.endsWith("--"));
    const flat = `--${cwd.slice(1).replace(/[/\\:]/g, "-")}--`;
    if (Buffer.byteLength(flat) <= MAX_NAME_BYTES) assert.equal(name, flat, "Pi's layout where it fits");
    else {
      const other = seen.get(name);
      assert.ok(other === undefined || other === cwd, "different long paths, different names");
      seen.set(name, cwd);
    }
  }
});

// ---- files the daemon may not read or write: as root (CI), a daemon running as nobody ----------

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/**
 * bin/pith --mode rpc as another user when this is root (root reads everything), else as this
 * user. The other user may not reach a checkout in a private directory (CI's): installFor then
 * gives it a copy it can run.
 */
function startRpcAs(t: Parameters<typeof tempDir>[0], opts: { home: string; cwd: string; uid?: number }) {
  const as = opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : undefined;
  const install = as ? installFor(t, { name: "nobody", ...as, spawnAs: as }) : { bin: BIN, nodeDir: undefined };
  const env = daemonEnv({ home: opts.home, env: install.nodeDir ? { PATH: `${install.nodeDir}:${process.env.PATH ?? ""}` } : {} });
  const proc = spawn(install.bin, ["--mode", "rpc"], { cwd: opts.cwd, env, stdio: ["pipe", "pipe", "pipe"], ...(as ?? {}) });
  let stderr = "";
  proc.stderr!.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  proc.stdin!.on("error", () => {});
  const peer = peerOverChild(proc, "other-user");
  const exited = new Promise<number | null>((resolve) => proc.on("close", (code) => resolve(code)));
  proc.on("close", () => peer.closed(`exited; stderr: ${stderr.slice(-500)}`));
  t.after(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    await exited;
  });
  return { peer, stop: () => (proc.stdin!.end(), exited) };
}

test("a session file the daemon may not read or lock, a cwd it may not enter: -32602 PermissionDenied", async (t) => {
  const base = tempDir(t);
  const root = join(base, "perm");
  mkdirSync(root);
  chmodSync(base, 0o755); // another user must be able to pass through
  chmodSync(root, 0o755);
  const home = join(root, "home");
  const cwd = join(root, "project");
  mkdirSync(home);
  mkdirSync(cwd);
  const made = SessionFile.create({ cwd: "/work/app", sessionsDir: join(base, "made") });
  made.close();
  const secret = join(root, "secret.jsonl");
  execFileSync("cp", [made.file, secret]);
  const roDir = join(root, "readonly");
  mkdirSync(roDir);
  const readable = join(roDir, "readable.jsonl");
  execFileSync("cp", [made.file, readable]);
  const privateDir = join(root, "private");
  mkdirSync(join(privateDir, "sub"), { recursive: true });
  if (asRoot) {
    // the daemon runs as nobody and owns only its home and project
    chownSync(home, NOBODY, NOBODY);
    chownSync(cwd, NOBODY, NOBODY);
    chmodSync(secret, 0o600);
    chmodSync(readable, 0o644);
    chmodSync(privateDir, 0o700);
  } else {
    chmodSync(secret, 0o000);
    chmodSync(roDir, 0o555);
    chmodSync(privateDir, 0o000);
    t.after(() => {
      chmodSync(roDir, 0o755);
      chmodSync(privateDir, 0o755);
    });
  }
  const { peer, stop } = startRpcAs(t, { home, cwd, uid: asRoot ? NOBODY : undefined });
  await peer.initialize();
  const refused = async (method: string, params: object) => (await peer.expectError(method, params, -32602)).data?.reason;
  assert.equal(await refused("openSession", { sessionFile: secret }), "PermissionDenied", "a file it may not read");
  assert.equal(await refused("openSession", { sessionFile: readable }), "PermissionDenied", "a file it may read but not lock");
  assert.deepEqual(readdirSync(roDir), ["readable.jsonl"], "no lock file was made");
  assert.equal(await refused("createSession", { cwd: join(privateDir, "sub") }), "PermissionDenied", "a cwd it may not enter");
  assert.equal(await refused("openSession", { sessionFile: join(privateDir, "sub", "x.jsonl") }), "PermissionDenied");
  const own = await peer.request("createSession", { cwd });
  assert.ok(existsSync(own.sessionFile), "its own places still work");
  assert.equal(peer.received.filter((m) => m?.error?.code === -32603).length, 0, "no internal errors");
  assert.equal(await stop(), 0);
});
