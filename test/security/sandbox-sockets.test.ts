// No side doors: a sandboxed command cannot connect to a unix socket outside the sandbox (the
// user's agents, D-Bus, docker.sock, a user service), whether the socket lies in the user's home,
// in the cwd, in $XDG_RUNTIME_DIR, in the host's /tmp, or in the abstract namespace, with the network off or on.
// The same client connects to every one of them from outside the sandbox, so the test can fail.
// Nor can it make a socket of any family but AF_INET, AF_INET6 and AF_NETLINK: AF_VSOCK (the
// host's or hypervisor's services, outside every network namespace), AF_PACKET, AF_ALG, ... (perl,
// from Debian's essential perl-base, makes the calls; the same probe outside is the control).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import { sandboxAvailable } from "../../src/tools/sandbox.js";
import { isolatedNetworkAvailable } from "../../src/tools/sandbox-net.js";
import { seccompFilter } from "../../src/tools/seccomp.js";
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

/** Runs the classic BPF program on one seccomp_data (nr, arch, args[0]) as the kernel would: its return value. */
function runFilter(program: Buffer, nr: number, arch: number, arg0: number): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr | 0, 0);
  data.writeUInt32LE(arch >>> 0, 4);
  data.writeUInt32LE(arg0 >>> 0, 16);
  let a = 0;
  for (let pc = 0; pc < program.length / 8; pc++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program[pc * 8 + 2];
    const jf = program[pc * 8 + 3];
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) a = data.readUInt32LE(k);
    else if (code === 0x54) a = (a & k) >>> 0;
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected BPF opcode ${code}`);
  }
  throw new Error("the program ran off its end");
}

test("the seccomp program: socket() for AF_INET, AF_INET6, AF_NETLINK only; socketpair() for AF_UNIX only; io_uring ENOSYS; on every ABI it knows", () => {
  const ALLOW = 0x7fff0000;
  const EAFNOSUPPORT = 0x00050000 | 97;
  const ENOSYS = 0x00050000 | 38;
  const KILL = 0x80000000;
  // arch, socket, socketpair, and a call that takes no family (write)
  const abis = {
    x64: [
      { name: "x86_64", arch: 0xc000003e, socket: 41, socketpair: 53, other: 1 },
      { name: "x32", arch: 0xc000003e, socket: 41 | 0x40000000, socketpair: 53 | 0x40000000, other: 1 | 0x40000000 },
      { name: "i386", arch: 0x40000003, socket: 359, socketpair: 360, other: 4 },
    ],
    arm64: [
      { name: "aarch64", arch: 0xc00000b7, socket: 198, socketpair: 199, other: 64 },
      { name: "arm", arch: 0x40000028, socket: 281, socketpair: 288, other: 4 },
    ],
  };
  const families = { AF_UNIX: 1, AF_INET: 2, AF_INET6: 10, AF_NETLINK: 16, AF_PACKET: 17, AF_BLUETOOTH: 31, AF_ALG: 38, AF_VSOCK: 40, AF_XDP: 44, AF_MAX_FUTURE: 60 };
  for (const [cpu, list] of Object.entries(abis)) {
    const program = seccompFilter(cpu as NodeJS.Architecture)!;
    for (const abi of list) {
      for (const [family, n] of Object.entries(families)) {
        const socketAllowed = n === 2 || n === 10 || n === 16;
        assert.equal(runFilter(program, abi.socket, abi.arch, n), socketAllowed ? ALLOW : EAFNOSUPPORT, `${abi.name} socket(${family})`);
        assert.equal(runFilter(program, abi.socketpair, abi.arch, n), n === 1 ? ALLOW : EAFNOSUPPORT, `${abi.name} socketpair(${family})`);
      }
      assert.equal(runFilter(program, abi.other, abi.arch, 40), ALLOW, `${abi.name}: other calls are untouched`);
      for (const nr of [425, 426, 427]) assert.equal(runFilter(program, nr | (abi.name === "x32" ? 0x40000000 : 0), abi.arch, 0), ENOSYS, `${abi.name} io_uring ${nr}`);
    }
    assert.equal(runFilter(program, 41, 0x80000016, 40), KILL, `${cpu}: an unknown architecture (s390x) is killed`);
  }
  assert.equal(runFilter(seccompFilter("x64")!, 102, 0x40000003, 1), EAFNOSUPPORT, "i386 socketcall is refused outright");
  assert.equal(seccompFilter("s390x"), undefined);
});

/** socket() or socketpair() of each family (`socket:FAMILY:TYPE`), printing `call FAMILY: ok` or `call FAMILY: errno N`. */
const FAMILY_PROBE = `for my $spec (@ARGV) { my ($call, $f, $t) = split /:/, $spec; my $ok = $call eq "pair" ? socketpair(my $a, my $b, $f, $t, 0) : socket(my $s, $f, $t, 0); printf "%s %d: %s\n", $call, $f, $ok ? "ok" : "errno " . ($! + 0); }`;
const ALLOWED = ["socket:2:1", "socket:10:2", "socket:16:3", "pair:1:1"];
/** AF_VSOCK, AF_PACKET, AF_ALG, AF_BLUETOOTH, AF_TIPC (socketpair too), AF_UNIX; socketpair(AF_INET) */
const REFUSED = ["socket:40:1", "socket:17:3", "socket:38:5", "socket:31:1", "socket:30:5", "pair:30:5", "socket:1:1", "pair:2:1"];
const perl = spawnSync("perl", ["-e", "exit 0"]).status === 0;

async function families(t: TestContext, network: boolean): Promise<void> {
  const args = [...ALLOWED, ...REFUSED].join(" ");
  const outside = spawnSync("perl", ["-e", FAMILY_PROBE, ...args.split(" ")], { encoding: "utf8" });
  assert.match(outside.stdout, /^socket 40: ok$/m, `AF_VSOCK works outside the sandbox here (the control): ${outside.stdout}`);
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, sandbox: { network } });
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const inside = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: `perl -e '${FAMILY_PROBE}' ${args}` });
  for (const spec of ALLOWED) {
    const [call, f] = spec.split(":");
    const line = `${call} ${f}: `;
    const was = outside.stdout.split("\n").find((l) => l.startsWith(line));
    assert.ok(inside.text.split("\n").includes(was!), `${spec} as outside (${was}): ${inside.text}`);
  }
  for (const spec of REFUSED) {
    const [call, f] = spec.split(":");
    assert.match(inside.text, new RegExp(`^${call} ${f}: errno 97$`, "m"), `${spec} refused with EAFNOSUPPORT: ${inside.text}`);
  }
  t.diagnostic(`outside: ${outside.stdout.trim().split("\n").join("; ")}`);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
}

const skipPerl = skip || (perl ? false : "perl is not installed (Debian package perl-base)");

test("socket families other than AF_INET, AF_INET6 and AF_NETLINK are refused in the sandbox, AF_VSOCK included (network off)", { skip: skipPerl }, async (t) => {
  await families(t, false);
});

test("socket families other than AF_INET, AF_INET6 and AF_NETLINK are refused in the sandbox (network on)", { skip: skipPerl || skipNet }, async (t) => {
  await families(t, true);
});
