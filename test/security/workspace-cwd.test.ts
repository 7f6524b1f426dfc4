// Workspaces pith will not use. A colleague's session file whose header says `cwd: ~/.pith` (or
// the sessions folder, or a path into them through a link) would have the model read the token
// and every transcript, and write settings.json (`sandbox: off`) so the next session runs
// unconfined; `cwd: ~` would let it append to ~/.bashrc. Through the real daemon over real pipes,
// with the fake Messages API as the model: such a cwd is refused with -32602 and a reason before
// anything runs (the model gets no request, the file stays as it was, no lock is left), wherever
// it comes from; a cwd taken from a file is never silently as wide as the home directory or `/`;
// openSession's `cwd` names where the session works instead, and the stored header stays.
import assert from "node:assert/strict";
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import pg from "pg";
import { ErrorCodes } from "../../protocol/index.js";
import { startAcp } from "../support/acp-daemon.js";
import { installFor, ownedDir, unprivilegedUser, type TestUser } from "../support/as-user.js";
import { checkDist, Cleanup, FLOW_SETTINGS, runPith, startRpcDaemon, startServeDaemon, writeSettings, type RpcPeer } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { modelCalls } from "../support/model-tools.js";
import { postgresSkip, startPostgres } from "../support/postgres.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
const cleanup = new Cleanup();
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
  await cleanup.run();
});

let n = 0;
/** A colleague's session file: a v3 header with `cwd` and one exchange, in `dir` (outside any store). */
function sessionFile(dir: string, cwd: string, id = `c0ffee00-0000-4000-8000-${String(++n).padStart(12, "0")}`): string {
  const file = join(dir, `${id}.jsonl`);
  const timestamp = new Date().toISOString();
  const header = { type: "session", version: 3, id, timestamp, cwd };
  const user = { type: "message", id: "a1b2c3d4", parentId: null, timestamp, message: { role: "user", content: "please look around", timestamp: Date.now() } };
  writeFileSync(file, JSON.stringify(header) + "\n" + JSON.stringify(user) + "\n");
  return file;
}

/** The reason of a -32602 answer, after checking the code. */
async function refusal(peer: RpcPeer, method: "openSession" | "createSession", params: Record<string, unknown>): Promise<string> {
  const answer = await peer.call(method, params as never);
  assert.equal(answer.error?.code, ErrorCodes.InvalidParams, `${method} ${JSON.stringify(params)} is refused: ${JSON.stringify(answer)}`);
  return String((answer.error?.data as { reason?: unknown } | undefined)?.reason);
}

/** Nothing of the file changed and no lock is left beside it. */
function untouched(file: string, text: string): void {
  assert.equal(readFileSync(file, "utf8"), text, `${file} is unchanged`);
  assert.equal(existsSync(`${file}.lock`), false, `no lock left beside ${file}`);
}

function pithHome(t: TestContext): { parent: string; home: string } {
  const parent = tempDir(t, "pith-ws-");
  const home = join(parent, "home", ".pith");
  mkdirSync(join(home, "sessions"), { recursive: true });
  writeSettings(home, FLOW_SETTINGS);
  writeFileSync(join(home, "token"), "home-token_0123456789abcdefghijklmnop", { mode: 0o600 });
  return { parent, home };
}

test("openSession of a file whose header's cwd is pith's home, its sessions folder, inside them, or reached through a link: -32602 CwdInPithHome, nothing run, the file unchanged", async (t) => {
  checkDist(t);
  const { parent, home } = pithHome(t);
  const project = join(parent, "project");
  const files = join(parent, "downloads");
  mkdirSync(project);
  mkdirSync(files);
  symlinkSync(home, join(project, "config"));
  symlinkSync(join(home, "not-yet"), join(project, "dangling"));
  const cwds = [
    home,
    join(home, "sessions"),
    join(home, "sessions", "--x--"), // does not exist: resolved as far as it goes
    join(project, "config"), // a link to pith's home
    join(project, "config", "sessions"),
    join(project, "dangling", "deeper"), // a dangling link into it
    `${project}/config/../.pith`, // `..` after the link: where the kernel goes (not path.join's project/.pith)
  ];
  const d = startRpcDaemon(t, { home, fake, cwd: project, env: { HOME: join(parent, "home") } });
  await d.peer.initialize();
  const before = fake.requests.length;
  for (const cwd of cwds) {
    const file = sessionFile(files, cwd);
    const text = readFileSync(file, "utf8");
    assert.equal(await refusal(d.peer, "openSession", { sessionFile: file }), "CwdInPithHome", cwd);
    untouched(file, text);
  }
  // the same through a file planted in pith's own store, opened by id
  const planted = join(home, "sessions", "--planted--");
  mkdirSync(planted);
  const inStore = sessionFile(planted, home, "c0ffee00-0000-4000-8000-0000000000aa");
  const storeText = readFileSync(inStore, "utf8");
  assert.equal(await refusal(d.peer, "openSession", { sessionId: "c0ffee00-0000-4000-8000-0000000000aa" }), "CwdInPithHome");
  untouched(inStore, storeText);
  // and a client's own request
  for (const cwd of [home, join(home, "sessions"), join(project, "config")]) assert.equal(await refusal(d.peer, "createSession", { cwd }), "CwdInPithHome", cwd);
  assert.equal(fake.requests.length, before, "the model was asked nothing");
  assert.equal(readFileSync(join(home, "settings.json"), "utf8"), JSON.stringify(FLOW_SETTINGS, null, 2), "settings.json untouched");

  // control: a colleague's file of a real project opens, and the session works there
  const ok = await d.peer.request("openSession", { sessionFile: sessionFile(files, project) });
  assert.equal(ok.state.cwd, project);
  // a cwd that holds pith's home (the user's home with ~/.pith) is a normal workspace: the home stays hidden in it
  const wide = await d.peer.request("createSession", { cwd: join(parent, "home") });
  assert.equal(wide.state.cwd, join(parent, "home"));
  await drainFake(fake);
});

test("a sessions folder elsewhere (a link from $PITH_HOME/sessions) is refused as a cwd too", async (t) => {
  checkDist(t);
  const { parent, home } = pithHome(t);
  const elsewhere = join(parent, "big-disk", "pith-sessions");
  mkdirSync(elsewhere, { recursive: true });
  // the sessions folder lives on another disk
  const moved = join(home, "sessions");
  rmdirSync(moved);
  symlinkSync(elsewhere, moved);
  const files = tempDir(t, "pith-ws-files-");
  const d = startRpcDaemon(t, { home, fake, cwd: parent });
  await d.peer.initialize();
  for (const cwd of [elsewhere, join(elsewhere, "--home-me-app--")]) {
    const file = sessionFile(files, cwd);
    const text = readFileSync(file, "utf8");
    assert.equal(await refusal(d.peer, "openSession", { sessionFile: file }), "CwdInPithHome", cwd);
    untouched(file, text);
  }
  assert.equal(await refusal(d.peer, "createSession", { cwd: elsewhere }), "CwdInPithHome");
});

test("a header's cwd that is the home directory or / is refused unless openSession names a cwd; with one the session works there and the header stays", async (t) => {
  checkDist(t);
  const { parent, home } = pithHome(t);
  const userHome = join(parent, "home");
  const project = join(parent, "project");
  mkdirSync(project);
  const files = tempDir(t, "pith-ws-files-");
  const d = startRpcDaemon(t, { home, fake, cwd: project, env: { HOME: userHome } });
  await d.peer.initialize();
  const before = fake.requests.length;
  for (const cwd of [userHome, "/", parent]) {
    const file = sessionFile(files, cwd);
    const text = readFileSync(file, "utf8");
    assert.equal(await refusal(d.peer, "openSession", { sessionFile: file }), "CwdTooWide", cwd);
    untouched(file, text);
  }
  assert.equal(fake.requests.length, before, "the model was asked nothing");
  // even a cwd given does not let pith's home in
  const hostile = sessionFile(files, home);
  assert.equal(await refusal(d.peer, "openSession", { sessionFile: hostile, cwd: home }), "CwdInPithHome");

  // "open this file, work here": the header said ~/.pith, the session works in the project
  const header = readFileSync(hostile, "utf8").split("\n")[0];
  const opened = await d.peer.request("openSession", { sessionFile: hostile, cwd: project });
  assert.equal(opened.state.cwd, project, "the answer names the directory the session writes in");
  const wrote = await modelCalls(d.peer, fake, opened.sessionId, "write", { path: "settings.json", content: '{"sandbox":{"mode":"off"}}' });
  assert.equal(wrote.isError, false, wrote.text);
  assert.equal(readFileSync(join(project, "settings.json"), "utf8"), '{"sandbox":{"mode":"off"}}', "written in the project");
  assert.equal(readFileSync(join(home, "settings.json"), "utf8"), JSON.stringify(FLOW_SETTINGS, null, 2), "pith's settings untouched");
  assert.equal(readFileSync(hostile, "utf8").split("\n")[0], header, "the stored header is not rewritten");
  assert.equal((await d.peer.request("getState", { sessionId: opened.sessionId })).cwd, project);
  // the same session asked for elsewhere while it is open here: refused, not silently moved
  assert.equal(await refusal(d.peer, "openSession", { sessionFile: hostile, cwd: parent }), "CwdDiffers");

  // the home directory named by the request itself is the user's choice
  const wide = await d.peer.request("openSession", { sessionFile: sessionFile(files, userHome), cwd: userHome });
  assert.equal(wide.state.cwd, userHome);
  await drainFake(fake);
});

test("pith -p --session FILE works in the directory it is run from, and says so; a store session in pith's home is refused", async (t) => {
  checkDist(t);
  const { parent, home } = pithHome(t);
  const project = join(parent, "project");
  mkdirSync(project);
  const files = tempDir(t, "pith-ws-files-");
  const hostile = sessionFile(files, home);
  const header = readFileSync(hostile, "utf8").split("\n")[0];
  fake.enqueue(toolUseReply("write", { path: "notes.txt", content: "from the model\n" }), textReply("done"));
  const run = await runPith(["-p", "--session", hostile, "write the notes"], { home, fake, cwd: project, env: { HOME: join(parent, "home") } });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, new RegExp(`works in ${project.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n`), "stderr names the directory it writes in");
  assert.equal(readFileSync(join(project, "notes.txt"), "utf8"), "from the model\n", "written where the command ran");
  assert.equal(existsSync(join(home, "notes.txt")), false, "nothing written in pith's home");
  assert.equal(readFileSync(hostile, "utf8").split("\n")[0], header, "the header stays");

  // a file planted in the store names pith's home: refused before the model is asked anything
  const planted = join(home, "sessions", "--planted--");
  mkdirSync(planted);
  const inStore = sessionFile(planted, home, "c0ffee00-0000-4000-8000-0000000000bb");
  const text = readFileSync(inStore, "utf8");
  const before = fake.requests.length;
  const refused = await runPith(["-p", "--session", "c0ffee00-0000-4000-8000-0000000000bb", "go on"], { home, fake, cwd: project });
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /cannot work in .*pith's own folder/);
  assert.equal(fake.requests.length, before, "the model was asked nothing");
  untouched(inStore, text);
});

test("ACP: session/new in pith's home and session/load of a stored session working there are refused with -32602", async (t) => {
  checkDist(t);
  const { parent, home } = pithHome(t);
  const project = join(parent, "project");
  mkdirSync(project);
  const planted = join(home, "sessions", "--planted--");
  mkdirSync(planted);
  const inStore = sessionFile(planted, join(home, "sessions"), "c0ffee00-0000-4000-8000-0000000000cc");
  const text = readFileSync(inStore, "utf8");
  const a = await startAcp(t, { home, fake, cwd: project });
  const created = await a.request(acp.methods.agent.session.new, { cwd: home, mcpServers: [] }).then(
    () => undefined,
    (e: acp.RequestError) => e,
  );
  assert.equal(created?.code, ErrorCodes.InvalidParams, String(created?.message));
  assert.equal((created?.data as { reason?: string }).reason, "CwdInPithHome");
  const loaded = await a.request(acp.methods.agent.session.load, { sessionId: "c0ffee00-0000-4000-8000-0000000000cc", cwd: project, mcpServers: [] }).then(
    () => undefined,
    (e: acp.RequestError) => e,
  );
  assert.equal(loaded?.code, ErrorCodes.InvalidParams, String(loaded?.message));
  assert.equal((loaded?.data as { reason?: string }).reason, "CwdInPithHome");
  untouched(inStore, text);
  assert.deepEqual(a.violations, []);
});

test("pith store import of a file whose cwd is pith's home or the home directory is refused; a row that says so is refused by the node, untaken", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  checkDist(t);
  const server = await startPostgres(t);
  const { parent, home } = pithHome(t);
  const files = tempDir(t, "pith-ws-files-");
  for (const [cwd, reason] of [
    [home, "CwdInPithHome"],
    [join(parent, "home"), "CwdTooWide"],
  ] as const) {
    const imported = await runPith(["store", "import", sessionFile(files, cwd), "--store", server.url], { home, cwd: parent, env: { HOME: join(parent, "home") } });
    assert.equal(imported.code, 1, `the import is refused: ${imported.stdout}${imported.stderr}`);
    assert.match(imported.stderr, new RegExp(`${reason}: `));
  }
  // a row written by hand (or by a version before this check)
  const id = "c0ffee00-0000-4000-8000-0000000000dd";
  const header = readFileSync(sessionFile(files, join(home, "sessions"), id), "utf8").split("\n")[0];
  const c = new pg.Client(server.config);
  c.on("error", () => {}); // the server stops before the client when the test ends early
  await c.connect();
  assert.equal((await c.query("SELECT count(*)::int AS n FROM sessions")).rows[0].n, 0, "nothing was imported");
  await c.query("INSERT INTO sessions (id, header, cwd, created, modified) VALUES ($1, $2, $3, now(), now())", [id, header, "/tmp"]);
  await c.query("INSERT INTO owners (session_id, node_id, epoch, lease_expires) VALUES ($1, NULL, 1, now())", [id]);
  const node = await startServeDaemon(t, { home, fake, cwd: parent, args: ["--store", server.url, "--node-id", "node0"] });
  const peer = await node.connect(t);
  await peer.initialize();
  assert.equal(await refusal(peer, "openSession", { sessionId: id }), "CwdInPithHome");
  const owner = (await c.query("SELECT node_id, epoch FROM owners WHERE session_id = $1", [id])).rows[0];
  assert.deepEqual(owner, { node_id: null, epoch: "1" }, "the session was not taken (epoch is a bigint: pg gives it as text)");
  await c.end();
});

test("offline, a session created without a cwd works in a private scratch project in the OS temp dir, never in pith's home", async (t) => {
  checkDist(t);
  const { parent, home } = pithHome(t);
  const d = startRpcDaemon(t, { home, cwd: parent });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", {});
  t.after(() => rmSync(s.state.cwd, { recursive: true, force: true }));
  assert.equal(dirname(s.state.cwd), tmpdir(), s.state.cwd);
  assert.match(basename(s.state.cwd), /^pith-demo-/);
  assert.equal(statSync(s.state.cwd).mode & 0o777, 0o700, "made by mkdtemp: private");
  assert.ok(existsSync(join(s.state.cwd, "notes.md")), "with the demo's files");
  const again = await d.peer.request("createSession", {});
  assert.equal(again.state.cwd, s.state.cwd, "one scratch project per daemon");
});

// ---- as an unprivileged user ----------------------------------------------------------------------

// the file tools run in the daemon, as that user: no sandbox is needed for what this shows
const user: TestUser = unprivilegedUser();

test("as an unprivileged user: a colleague's file naming that user's ~/.pith or ~ is refused; opened with a cwd, the model writes only there", async (t) => {
  checkDist(t);
  const install = installFor(cleanup, user);
  const userHome = ownedDir(t, user, "home");
  const home = join(userHome, ".pith");
  mkdirSync(join(home, "sessions"), { recursive: true, mode: 0o700 });
  writeSettings(home, FLOW_SETTINGS);
  writeFileSync(join(home, "token"), "home-token_0123456789abcdefghijklmnop", { mode: 0o600 });
  const project = ownedDir(t, user, "project");
  for (const p of [home, join(home, "sessions"), join(home, "settings.json"), join(home, "token")]) chownSync(p, user.uid, user.gid);
  // the colleague's files: readable by everyone, in a place of their own
  const files = tempDir(t, "pith-ws-colleague-");
  chmodSync(files, 0o755);
  const d = startRpcDaemon(t, { home, fake, cwd: project, bin: install.bin, user: user.spawnAs, env: { HOME: userHome, PATH: `${install.nodeDir}:${process.env.PATH}` } });
  await d.peer.initialize();
  const before = fake.requests.length;
  for (const [cwd, reason] of [
    [home, "CwdInPithHome"],
    [join(home, "sessions"), "CwdInPithHome"],
    [userHome, "CwdTooWide"],
  ] as const) {
    const file = sessionFile(files, cwd);
    chmodSync(file, 0o644);
    const text = readFileSync(file, "utf8");
    assert.equal(await refusal(d.peer, "openSession", { sessionFile: file }), reason, cwd);
    untouched(file, text);
  }
  assert.equal(fake.requests.length, before, "the model was asked nothing");
  // opened with the user's project as its cwd (a copy the user may write: the colleague's file is theirs)
  const mine = join(project, "from-colleague.jsonl");
  writeFileSync(mine, readFileSync(sessionFile(files, home), "utf8"));
  chownSync(mine, user.uid, user.gid);
  const opened = await d.peer.request("openSession", { sessionFile: mine, cwd: project });
  assert.equal(opened.state.cwd, project);
  const wrote = await modelCalls(d.peer, fake, opened.sessionId, "write", { path: "out.txt", content: "here\n" });
  assert.equal(wrote.isError, false, wrote.text);
  assert.equal(readFileSync(join(project, "out.txt"), "utf8"), "here\n");
  const read = await modelCalls(d.peer, fake, opened.sessionId, "read", { path: join(home, "token") });
  assert.equal(read.isError, true, `pith's token stays out of reach: ${read.text}`);
  await drainFake(fake);
});
