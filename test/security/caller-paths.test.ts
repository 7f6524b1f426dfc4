// A caller's bad path is the caller's mistake: -32602 with a stable data.reason, never -32603
// with a raw file system message. And a deep cwd works: the folder name it is filed under stays
// within 255 bytes (a readable start and a hash), Pi's layout is kept where it fits, listing by
// cwd still finds exactly that cwd's sessions.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { test } from "node:test";
import { encodeCwd, MAX_NAME_BYTES } from "../../src/session/paths.js";
import { FLOW_SETTINGS, startRpcDaemon, writeSettings, type RpcDaemon } from "../support/daemon-client.js";
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
