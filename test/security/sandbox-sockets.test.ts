// No side doors: a sandboxed command cannot connect to a unix socket outside the sandbox (the
// user's agents, D-Bus, docker.sock, a user service), whether the socket lies in the user's home,
// in the cwd, in $XDG_RUNTIME_DIR, in the host's /tmp, or in the abstract namespace, with the network off or on.
// The same client connects to every one of them from outside the sandbox, so the test can fail.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import { sandboxAvailable } from "../../src/tools/sandbox.js";
import { isolatedNetworkAvailable } from "../../src/tools/sandbox-net.js";
import { unixSocketFilter } from "../../src/tools/seccomp.js";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { modelCalls } from "../support/model-tools.js";
import { tempDir } from "../support/tmp.js";

const probe = sandboxAvailable();
const skip = probe.ok ? false : `${probe.reason}; skipping the sandbox tests (CI installs the Debian package bubblewrap)`;
const skipNet = skip || (isolatedNetworkAvailable() ? false : "slirp4netns is not installed (Debian package slirp4netns; CI installs it)");

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

/** A directory outside /tmp (the sandbox's /tmp is private, which would hide a socket there anyway). */
function visibleDir(t: TestContext, prefix: string): string {
  const dir = mkdtempSync(join("/var/tmp", prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function listen(t: TestContext, path: string): Promise<void> {
  const server = net.createServer((s) => {
    s.on("error", () => {}); // the client hangs up at once
    s.end("hello\n");
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(path, resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
}

/** A node script that tries each socket and prints `name: connected` or `name: refused (CODE)`. */
function clientScript(sockets: Record<string, string>): string {
  return `
const net = require("net");
const sockets = ${JSON.stringify(sockets)};
(async () => {
  for (const [name, path] of Object.entries(sockets)) {
    const line = await new Promise((resolve) => {
      try {
        const s = net.connect(path, () => { s.destroy(); resolve(name + ": connected"); });
        s.on("error", (e) => resolve(name + ": refused (" + e.code + ")"));
      } catch (e) { resolve(name + ": refused (" + e.code + ")"); }
    });
    console.log(line);
  }
})();`;
}

/** Calls io_uring_setup(8, params) and prints its result and errno. */
const IO_URING_PROBE = [
  "import ctypes",
  "libc = ctypes.CDLL(None, use_errno=True)",
  "params = ctypes.create_string_buffer(120)",
  "fd = libc.syscall(425, 8, params)",
  "print(\"io_uring_setup:\", -1 if fd < 0 else \"fd\", \"errno\", ctypes.get_errno())",
].join("; ");

async function sideDoors(t: TestContext, network: boolean): Promise<void> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  const userHome = visibleDir(t, "pith-sock-home-");
  const runtime = visibleDir(t, "pith-sock-xdg-");
  const sockets = {
    home: join(userHome, "agent.sock"),
    cwd: join(cwd, "service.sock"),
    xdg: join(runtime, "bus"),
    // (the host's /tmp is behind the sandbox's private one anyway)
    hostTmp: join(tempDir(t, "pith-sock-tmp-"), "svc.sock"),
    abstract: `\0pith-test-${process.pid}-${network}`,
  };
  for (const path of Object.values(sockets)) await listen(t, path);
  const script = clientScript(sockets);

  // outside the sandbox, the same client reaches every socket
  const outside = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 10_000 });
  for (const name of Object.keys(sockets)) assert.match(outside.stdout, new RegExp(`^${name}: connected$`, "m"), outside.stdout + outside.stderr);

  writeSettings(home, { ...FLOW_SETTINGS, sandbox: { network } });
  const d = startRpcDaemon(t, { home, fake, cwd, env: { HOME: userHome, XDG_RUNTIME_DIR: runtime } });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const inside = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: `'${process.execPath}' -e '${script.replace(/'/g, `'\\''`)}'; ls /run | wc -l` });
  for (const name of Object.keys(sockets)) {
    assert.match(inside.text, new RegExp(`^${name}: refused`, "m"), `network ${network ? "on" : "off"}: ${inside.text}`);
  }
  assert.doesNotMatch(inside.text, /connected/);
  assert.match(inside.text, /^0$/m, "/run is hidden (empty)");
  const pair = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: "echo through-a-pipe | cat; python3 -c 'import socket; a,b=socket.socketpair(); a.send(b\"pair-ok\"); print(b.recv(7).decode())' 2>/dev/null || echo pair-ok" });
  assert.match(pair.text, /through-a-pipe/);
  assert.match(pair.text, /pair-ok/, "socketpair still works");
  // io_uring makes and connects sockets without the socket syscall (IORING_OP_SOCKET): refused
  const uring = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: `python3 -c '${IO_URING_PROBE}'` });
  assert.match(uring.text, /^io_uring_setup: -1 errno 38$/m, `io_uring is refused with ENOSYS: ${uring.text}`);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
}

test("a sandboxed command cannot connect to unix sockets outside the sandbox (network off, the default)", { skip }, async (t) => {
  await sideDoors(t, false);
});

test("a sandboxed command cannot connect to unix sockets outside the sandbox (network on)", { skip: skipNet }, async (t) => {
  await sideDoors(t, true);
});

test("the seccomp program: checks the architecture first, refuses only socket(AF_UNIX) (and i386 socketcall), kills an unknown architecture", () => {
  const insns = (buf: Buffer) => Array.from({ length: buf.length / 8 }, (_, i) => ({ code: buf.readUInt16LE(i * 8), jt: buf[i * 8 + 2], jf: buf[i * 8 + 3], k: buf.readUInt32LE(i * 8 + 4) }));
  for (const arch of ["x64", "arm64"] as const) {
    const p = insns(unixSocketFilter(arch)!);
    assert.deepEqual(p[0], { code: 0x20, jt: 0, jf: 0, k: 4 }, "loads seccomp_data.arch first");
    const rets = p.filter((i) => i.code === 0x06).map((i) => i.k);
    assert.deepEqual(rets, [0x7fff0000, 0x00050000 | 97, 0x00050000 | 38, 0x80000000], "allow, EAFNOSUPPORT, ENOSYS (io_uring), kill");
    for (const nr of [425, 426, 427]) assert.ok(p.some((i) => i.code === 0x15 && i.k === nr), `io_uring syscall ${nr} is checked`);
    assert.ok(p.some((i) => i.code === 0x15 && i.k === 1), "compares the domain with AF_UNIX");
  }
  const x64 = insns(unixSocketFilter("x64")!);
  assert.ok(x64.some((i) => i.code === 0x54 && i.k === 0xbfffffff), "x32 calls are masked to the native numbers");
  assert.ok(x64.some((i) => i.code === 0x15 && i.k === 102), "i386 socketcall is checked");
  assert.equal(unixSocketFilter("s390x"), undefined);
});
