// Sandboxed bash: where bubblewrap works, the model's commands run in workspace-write by default:
// they cannot write outside the cwd, read pith's token or transcripts, see the daemon's process,
// or outlive the daemon. readonly and network-off modes; the user's own bash is not sandboxed.
// More walls each have their own file: sandbox-sockets (no unix sockets), sandbox-network (the
// network, off or isolated), sandbox-limits (processes, memory, /tmp, output).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { DEFAULT_LIMITS, bwrapArgs, sandboxAvailable } from "../../src/tools/sandbox.js";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, poll, processWithArg, startRpcDaemon, startServeDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { modelCalls } from "../support/model-tools.js";
import { tempDir } from "../support/tmp.js";

const probe = sandboxAvailable();
const skip = probe.ok ? false : `${probe.reason}; skipping the sandbox tests (CI installs the Debian package bubblewrap)`;

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

/** The mount options in order after the read-only root, as [option, path] pairs. */
function mounts(args: string[]): string[][] {
  const out: string[][] = [];
  assert.deepEqual(args.slice(0, 3), ["--ro-bind", "/", "/"], "everything starts read-only");
  for (let i = 3; i < args.length && args[i] !== "--"; i++) {
    // (the /dev/shm and read-only /dev of the fixed flags, before every other mount: sandbox-dev.test.ts)
    if ((args[i] === "--tmpfs" && args[i + 1] === "/dev/shm") || (args[i] === "--remount-ro" && args[i + 1] === "/dev")) i++;
    else if (args[i] === "--tmpfs" || args[i] === "--remount-ro") out.push([args[i].replace(/^--/, ""), args[++i]]);
    else if (["--bind", "--ro-bind", "--bind-try", "--ro-bind-try"].includes(args[i])) {
      out.push([args[i].replace(/^--/, ""), args[i + 2]]);
      i += 2;
    }
  }
  return out;
}

// The order is stronger than it was: mounts go parent before child as before (a cwd under /tmp is
// bound after the private /tmp), but pith's hidden folders now come after every other mount,
// whatever their depth, so no bind can uncover them; and each bind is of a path checked on disk
// just now (a .pith that is a link is never bound through), so the paths below are real ones.
test("bwrap mounts: parent before child, pith's hidden folders after every other mount, nothing bound through a link", (t) => {
  const policy = { mode: "workspace-write" as const, network: "host" as const, writableRoots: [] as string[], limits: DEFAULT_LIMITS };
  const home = realpathSync(tempDir(t, "pith-order-home-"));
  const cwd = realpathSync(tempDir(t, "pith-order-cwd-"));
  const dot = join(cwd, ".pith");
  mkdirSync(dot);
  const inTmp = mounts(bwrapArgs(policy, { cwd, hidden: [home], readOnly: [dot] }, ["sh"]));
  assert.deepEqual(inTmp, [["tmpfs", "/tmp"], ["bind", cwd], ["ro-bind", dot], ["tmpfs", home]], "a cwd in /tmp after the private /tmp; .pith read-only; the home last");

  // pith's home inside the cwd, and a writable root and a read-only bind of the home's own path
  // deeper than it: the home is still hidden after them
  const homeIn = join(cwd, "home");
  mkdirSync(join(homeIn, "deep"), { recursive: true });
  const deep = mounts(bwrapArgs({ ...policy, writableRoots: [join(homeIn, "deep")] }, { cwd, hidden: [homeIn], readOnly: [homeIn, dot] }, ["sh"]));
  assert.deepEqual(deep, [["tmpfs", "/tmp"], ["bind", cwd], ["ro-bind", homeIn], ["ro-bind", dot], ["bind", join(homeIn, "deep")], ["tmpfs", homeIn]]);

  // .pith missing: an empty read-only folder in a writable cwd (the command cannot make one);
  // nothing in a read-only cwd, where nothing can be made anyway
  rmSync(dot, { recursive: true });
  const missing = mounts(bwrapArgs(policy, { cwd, hidden: [], readOnly: [dot] }, ["sh"]));
  assert.deepEqual(missing, [["tmpfs", "/tmp"], ["bind", cwd], ["tmpfs", dot], ["remount-ro", dot]]);
  assert.deepEqual(mounts(bwrapArgs({ ...policy, mode: "readonly" }, { cwd, hidden: [], readOnly: [dot] }, ["sh"])), [["tmpfs", "/tmp"], ["ro-bind", cwd]]);

  // .pith a link (to pith's home) and a writable root that is a link: nothing bound through them
  symlinkSync(home, dot);
  symlinkSync(home, join(cwd, "out"));
  const linked = mounts(bwrapArgs({ ...policy, writableRoots: [join(cwd, "out")] }, { cwd, hidden: [home], readOnly: [dot] }, ["sh"]));
  assert.deepEqual(linked, [["tmpfs", "/tmp"], ["bind", cwd], ["tmpfs", home]]);

  // a cwd inside a hidden folder (the offline demo's project): the folder hidden, then the cwd and
  // what protects it bound again, nothing else of the folder; the hidden folder itself as cwd: refused
  const demo = join(home, "demo");
  mkdirSync(join(demo, ".pith"), { recursive: true });
  const cwdInHome = mounts(bwrapArgs(policy, { cwd: demo, hidden: [home], readOnly: [join(demo, ".pith")] }, ["sh"]));
  assert.deepEqual(cwdInHome, [["tmpfs", "/tmp"], ["tmpfs", home], ["bind", demo], ["ro-bind", join(demo, ".pith")]]);
  assert.throws(() => bwrapArgs(policy, { cwd: home, hidden: [home], readOnly: [] }, ["sh"]), /lies inside/, "the hidden folder itself is never shown");

  const args = bwrapArgs({ ...policy, mode: "readonly", network: "off" }, { cwd: demo, hidden: [], readOnly: [] }, ["sh", "-c", "x"]);
  assert.ok(args.includes("--unshare-net") && args.includes("--unshare-pid") && args.includes("--die-with-parent"));
  assert.deepEqual(args.slice(-4), ["--", "sh", "-c", "x"]);
  assert.deepEqual(mounts(args), [["tmpfs", "/tmp"], ["ro-bind", demo]], "readonly binds the cwd read-only");
});

test("workspace-write by default: no write outside the cwd, no token, no daemon process, a private /tmp; the user's bash is not confined", { skip }, async (t) => {
  const home = tempDir(t, "pith-sbx-home-");
  const cwd = tempDir(t, "pith-sbx-cwd-");
  const outside = tempDir(t, "pith-sbx-out-");
  writeSettings(home, FLOW_SETTINGS);
  // $PITH_HOME/token, as a daemon started without --token leaves it (one given --token leaves it alone)
  writeFileSync(join(home, "token"), "home-token_0123456789abcdefghijklmnop", { mode: 0o600 });
  const d = await startServeDaemon(t, { home, fake, cwd, stdio: true });
  const peer = d.peer!;
  await peer.initialize();
  const s = await peer.request("createSession", { cwd });
  const run = (command: string) => modelCalls(peer, fake, s.sessionId, "bash", { command });

  const inside = await run("echo made-inside > inside.txt && cat inside.txt");
  assert.equal(inside.isError, false, inside.text);
  assert.equal(readFileSync(join(cwd, "inside.txt"), "utf8"), "made-inside\n", "the cwd is writable");

  const escape = await run(`echo escaped > ${join(outside, "escape.txt")}`);
  assert.equal(escape.isError, true, escape.text);
  assert.equal(existsSync(join(outside, "escape.txt")), false, "nothing written outside the cwd");
  assert.equal(s.state.sandbox, "workspace-write", "the default where bubblewrap works");
  const homeWrite = await run(`echo x > "$HOME/.pith-sandbox-probe"`);
  assert.equal(homeWrite.isError, true, homeWrite.text);

  const token = readFileSync(join(home, "token"), "utf8");
  const cat = await run(`cat ${join(home, "token")}; ls -a ${join(home)}; cat ${s.sessionFile}`);
  assert.ok(!cat.text.includes(token), `the token leaked: ${cat.text}`);
  assert.doesNotMatch(cat.text, /"type":"session"/, "a transcript leaked");

  const environ = await run(`cat /proc/${d.pid}/environ | tr '\\0' '\\n' | grep -c ANTHROPIC; ls /proc | grep -c '^[0-9]'`);
  assert.doesNotMatch(environ.text, /test-key/, "the daemon's environment (API key) is out of reach");

  const probeName = `pith-sandbox-probe-${process.pid}-${Date.now()}`;
  const tmp = await run(`echo private > /tmp/${probeName} && cat /tmp/${probeName}`);
  assert.equal(tmp.isError, false, tmp.text);
  assert.equal(existsSync(join("/tmp", probeName)), false, "the sandbox's /tmp is its own");

  const user = await peer.request("bash", { sessionId: s.sessionId, command: `echo by-the-user > ${join(outside, "user.txt")}` });
  assert.equal(user.exitCode, 0, user.output);
  assert.equal(readFileSync(join(outside, "user.txt"), "utf8"), "by-the-user\n", "the user's own bash is not sandboxed");
  assert.deepEqual(peer.violations, []);
  d.proc.kill("SIGTERM");
  await d.waitExit();
  await drainFake(fake);
});

test("--sandbox readonly: the cwd is read-only too; network off (also the default): no connection even to 127.0.0.1", { skip }, async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeFileSync(join(cwd, "a.txt"), "hello\n");
  writeSettings(home, { ...FLOW_SETTINGS, sandbox: { network: false } });
  const port = new URL(fake.url).port;
  const d = startRpcDaemon(t, { home, fake, cwd, args: ["--sandbox", "readonly"] });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const read = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: "cat a.txt" });
  assert.equal(read.text.trim(), "hello");
  const write = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: "echo changed > a.txt" });
  assert.equal(write.isError, true, write.text);
  assert.equal(readFileSync(join(cwd, "a.txt"), "utf8"), "hello\n");
  assert.equal(s.state.sandbox, "readonly");
  const net = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected` });
  assert.equal(net.isError, true, net.text);
  assert.doesNotMatch(net.text, /connected/);
  d.endStdin();
  await d.waitExit();

  // the network is off by default too (see sandbox-network.test.ts for the network on)
  writeSettings(home, FLOW_SETTINGS);
  const d2 = startRpcDaemon(t, { home, fake, cwd });
  await d2.peer.initialize();
  const s2 = await d2.peer.request("openSession", { sessionId: s.sessionId });
  const byDefault = await modelCalls(d2.peer, fake, s2.sessionId, "bash", { command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected` });
  assert.equal(byDefault.isError, true, byDefault.text);
  assert.doesNotMatch(byDefault.text, /connected/);
  d2.endStdin();
  await d2.waitExit();
  await drainFake(fake);
});

test("a sandboxed command dies with the daemon (kill -9)", { skip }, async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const marker = `987.${process.pid % 1000}`;
  fake.enqueue({ kind: "reply", content: [{ type: "tool_use", name: "bash", input: { command: `sleep ${marker}` } }] });
  await d.peer.request("prompt", { sessionId: s.sessionId, text: "sleep" });
  await poll(() => processWithArg(`sleep ${marker}`), "the sandboxed sleep to start");
  await d.kill9();
  await poll(() => (processWithArg(`sleep ${marker}`) === undefined ? true : undefined), "the sandboxed sleep to die with the daemon", 5000);
  await drainFake(fake);
});

test("where bubblewrap cannot run: the sandbox is off, and the daemon says so once at start, naming the package", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  // a PATH with node and the shells, without bwrap
  const bin = tempDir(t);
  for (const tool of [process.execPath, "/bin/sh", "/bin/bash"]) symlinkSync(tool, join(bin, tool.split("/").pop()!));
  const d = startRpcDaemon(t, { home, fake, cwd, env: { PATH: bin } });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  assert.equal(s.state.sandbox, "off");
  assert.match(d.stderr, /without a sandbox/);
  assert.match(d.stderr, /bubblewrap/);
  assert.equal(d.stderr.match(/without a sandbox/g)?.length, 1, "once");
  d.endStdin();
  await d.waitExit();
});
