// The sandbox as users have it: the real daemon (bin/pith --mode rpc, the fake Messages API
// playing the model) running as an unprivileged user, in a home and a project that user owns.
// As root (CI) everything is easier: bubblewrap needs no user namespace, slirp4netns no
// --userns-path, and root may write anywhere, so a wall that only stands for root would pass the
// other sandbox tests. Each wall is checked against a control: the same user, outside the
// sandbox, can write the directory, connect to the socket and to the listener.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join, relative } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import { sandboxAvailable } from "../../src/tools/sandbox.js";
import { isolatedNetworkAvailable } from "../../src/tools/sandbox-net.js";
import { bwrapProblem, installFor, ownedDir, unprivilegedUser, type Install, type TestUser } from "../support/as-user.js";
import { Cleanup, FLOW_SETTINGS, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { assertMemoryBounded, MEMORY_BACKED_PROBE, PROBE_TMP_MB } from "../support/memory-backed.js";
import { modelCalls } from "../support/model-tools.js";

const probe = sandboxAvailable();
const user: TestUser = unprivilegedUser();
const asUser = probe.ok ? bwrapProblem(user) : undefined;
const skip = !probe.ok
  ? `${probe.reason}; skipping the sandbox tests (CI installs the Debian package bubblewrap)`
  : asUser
    ? `bubblewrap cannot make a sandbox as ${user.name} (unprivileged user namespaces refused here?): ${asUser}`
    : false;
const skipNet = skip || (isolatedNetworkAvailable() ? false : "slirp4netns is not installed (Debian package slirp4netns; CI installs it)");

let fake: FakeAnthropic;
let install: Install;
const cleanup = new Cleanup();
before(async () => {
  fake = await startFakeAnthropic();
  if (skip) return;
  install = installFor(cleanup, user);
  if (install.copied.length > 0) process.stderr.write(`[sandbox-as-user] ${user.name} cannot run this checkout's ${install.copied.join(" and ")}: running a copy (${install.bin})\n`);
});
after(async () => {
  await fake.close();
  await cleanup.run();
});

/** A node script that tries each target and prints `name: connected` or `name: refused (CODE)`. */
function clientScript(targets: Record<string, net.NetConnectOpts>): string {
  return `
const net = require("net");
const targets = ${JSON.stringify(targets)};
(async () => {
  for (const [name, opts] of Object.entries(targets)) {
    console.log(await new Promise((resolve) => {
      const s = net.connect(opts, () => { s.destroy(); resolve(name + ": connected"); });
      s.setTimeout(3000, () => { s.destroy(); resolve(name + ": refused (timeout)"); });
      s.on("error", (e) => resolve(name + ": refused (" + e.code + ")"));
    }));
  }
})();`;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

interface Setup {
  home: string;
  cwd: string;
  outside: string;
  script: string;
}

/** The user's home, project and another directory of theirs; a unix socket in the project and a 127.0.0.1 listener; the control. */
async function setUp(t: TestContext): Promise<Setup> {
  const home = ownedDir(t, user, "home");
  const cwd = ownedDir(t, user, "project");
  // outside /tmp, which the sandbox replaces with its own
  const outside = ownedDir(t, user, "elsewhere", "/var/tmp");
  const unixPath = join(cwd, "svc.sock");
  const servers = [net.createServer(), net.createServer()];
  for (const s of servers) s.on("connection", (c) => c.on("error", () => {}).end("hello\n"));
  await new Promise<void>((resolve, reject) => servers[0].once("error", reject).listen(unixPath, resolve));
  chmodSync(unixPath, 0o777); // made by root here: any user may connect
  await new Promise<void>((resolve, reject) => servers[1].once("error", reject).listen(0, "127.0.0.1", resolve));
  t.after(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));
  const port = (servers[1].address() as net.AddressInfo).port;
  const script = clientScript({ unix: { path: unixPath }, loopback: { host: "127.0.0.1", port }, gateway: { host: "10.0.2.2", port } });

  // the control: the same user, outside the sandbox, reaches both and writes both directories
  const control = spawnSync("/bin/sh", ["-c", `echo ok > ${quote(join(outside, "control"))} && rm ${quote(join(outside, "control"))} && echo wrote; node -e ${quote(script)}`], { encoding: "utf8", timeout: 15_000, cwd, env: { ...process.env, PATH: `${install.nodeDir}:${process.env.PATH}` }, ...(user.spawnAs ?? {}) });
  assert.match(control.stdout, /^wrote$/m, control.stdout + control.stderr);
  assert.match(control.stdout, /^unix: connected$/m, control.stdout + control.stderr);
  assert.match(control.stdout, /^loopback: connected$/m, control.stdout + control.stderr);
  return { home, cwd, outside, script };
}

function startDaemon(t: TestContext, s: Setup, settings: object) {
  writeSettings(s.home, { ...FLOW_SETTINGS, ...settings });
  chownSync(join(s.home, "settings.json"), user.uid, user.gid);
  // HOME is the user's; root's runtime dir and temp dir are not
  const env = { HOME: s.home, XDG_RUNTIME_DIR: undefined, TMPDIR: undefined, PATH: `${install.nodeDir}:${process.env.PATH}` };
  return startRpcDaemon(t, { home: s.home, fake, cwd: s.cwd, bin: install.bin, user: user.spawnAs, env });
}

test(`as an unprivileged user (${user.name}), network off: writes in the cwd only, no unix sockets, no 127.0.0.1, rlimits`, { skip }, async (t) => {
  const s = await setUp(t);
  const d = startDaemon(t, s, {});
  await d.peer.initialize();
  const { sessionId } = await d.peer.request("createSession", { cwd: s.cwd });
  const command = [
    "id -u",
    "echo made > inside.txt && echo inside-ok",
    `(echo x > ${quote(join(s.outside, "escape.txt"))}) 2>&1 || echo outside-refused`,
    `node -e ${quote(s.script)}`,
    "echo processes $(ulimit -u)",
  ].join("; ");
  const r = await modelCalls(d.peer, fake, sessionId, "bash", { command });
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, new RegExp(`^${user.uid}$`, "m"), "the command runs as the user");
  assert.match(r.text, /^inside-ok$/m, r.text);
  assert.equal(readFileSync(join(s.cwd, "inside.txt"), "utf8"), "made\n");
  assert.equal(statSync(join(s.cwd, "inside.txt")).uid, user.uid);
  assert.match(r.text, /Read-only file system/, r.text);
  assert.match(r.text, /^outside-refused$/m, r.text);
  assert.equal(existsSync(join(s.outside, "escape.txt")), false);
  assert.match(r.text, /^unix: refused/m, r.text);
  assert.match(r.text, /^loopback: refused/m, r.text);
  assert.match(r.text, /^gateway: refused/m, r.text);
  assert.doesNotMatch(r.text, /connected/);
  // no cgroup for a normal user: the rlimit is the process limit
  assert.match(r.text, /^processes 512$/m, r.text);
  assert.deepEqual(d.peer.violations, []);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});

test(`as an unprivileged user (${user.name}), network on: slirp4netns's own network (tap0), no way to the host's 127.0.0.1`, { skip: skipNet }, async (t) => {
  const s = await setUp(t);
  const d = startDaemon(t, s, { sandbox: { network: true } });
  await d.peer.initialize();
  const { sessionId } = await d.peer.request("createSession", { cwd: s.cwd });
  const command = [
    `node -e ${quote(s.script)}`,
    "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sed 's/^/dev /'",
    "ip -o -4 addr show 2>&1 | awk '{ print \"addr\", $2, $4 }'",
    "echo x > outside-test 2>&1 && echo inside-ok",
  ].join("; ");
  const r = await modelCalls(d.peer, fake, sessionId, "bash", { command });
  assert.equal(r.isError, false, r.text);
  assert.doesNotMatch(r.text, /network could not be started/, r.text);
  assert.match(r.text, /^dev tap0$/m, r.text);
  assert.match(r.text, /^addr tap0 10\.0\.2\.\d+\/24$/m, r.text);
  assert.match(r.text, /^unix: refused/m, r.text);
  assert.match(r.text, /^loopback: refused/m, r.text);
  assert.match(r.text, /^gateway: refused/m, r.text);
  assert.doesNotMatch(r.text, /connected/);
  assert.match(r.text, /^inside-ok$/m, r.text);
  assert.deepEqual(d.peer.violations, []);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});

test(`as an unprivileged user (${user.name}): a .pith linked to pith's home (by the repository or the model) shows no token, no transcript`, { skip }, async (t) => {
  const home = ownedDir(t, user, "home");
  const cwd = ownedDir(t, user, "project");
  const token = "user-token_0123456789abcdefghijklmnop";
  writeFileSync(join(home, "token"), token, { mode: 0o600 });
  chownSync(join(home, "token"), user.uid, user.gid);
  const d = startDaemon(t, { home, cwd, outside: "", script: "" }, {});
  await d.peer.initialize();
  const { sessionId } = await d.peer.request("createSession", { cwd });
  // the model makes the link (refused now: a missing .pith is covered read-only); then, as a repository would ship it
  await modelCalls(d.peer, fake, sessionId, "bash", { command: `ln -s ${quote(relative(cwd, home))} .pith; echo tried` });
  const look = `cat .pith/token ${quote(join(home, "token"))}; ls -AR ${quote(home)}; echo w > ok.txt && echo wrote`;
  const first = await modelCalls(d.peer, fake, sessionId, "bash", { command: look });
  rmSync(join(cwd, ".pith"), { recursive: true, force: true });
  symlinkSync(relative(cwd, home), join(cwd, ".pith"));
  const second = await modelCalls(d.peer, fake, sessionId, "bash", { command: look });
  for (const r of [first, second]) {
    assert.match(r.text, /^wrote$/m, r.text);
    assert.ok(!r.text.includes(token), `the token leaked:\n${r.text}`);
    assert.doesNotMatch(r.text, /^token$|\.jsonl/m, `pith's home is listed:\n${r.text}`);
  }
  assert.deepEqual(d.peer.violations, []);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});

test(`as an unprivileged user (${user.name}), rlimits and no cgroup: /dev/shm and /tmp together hold tmpMB (${PROBE_TMP_MB} MiB), /dev is read-only`, { skip }, async (t) => {
  const s = await setUp(t);
  const d = startDaemon(t, s, { sandbox: { limits: { tmpMB: PROBE_TMP_MB } } });
  await d.peer.initialize();
  const { sessionId } = await d.peer.request("createSession", { cwd: s.cwd });
  const r = await modelCalls(d.peer, fake, sessionId, "bash", { command: MEMORY_BACKED_PROBE, timeout: 30 });
  assertMemoryBounded(r.text);
  assert.deepEqual(d.peer.violations, []);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});
