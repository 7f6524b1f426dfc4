// Descriptors pith's parent leaves open do not reach the commands pith runs: the daemon is started
// with a connected unix socket at fd 25 (past the block Node marks close-on-exec itself) and a
// file at fd 5, as an editor or a shell with a leak would, and the model's sandboxed bash, the
// same unsandboxed, and the user's own bash method each see fds 0-2 only. The unix socket is the
// dangerous one: the seccomp filter refuses making sockets, not using one already open, so a
// leaked one would be a way out of the sandbox to whatever listens at its other end.
import assert from "node:assert/strict";
import { closeSync, openSync, readdirSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import { sandboxAvailable } from "../../src/tools/sandbox.js";
import { isolatedNetworkAvailable } from "../../src/tools/sandbox-net.js";
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

/** Lists the command's descriptors as `fd N -> target`, then tries to write to the leaked socket. */
const LIST = "ls -l /proc/self/fd | sed -n 's/.* \\([0-9][0-9]*\\) -> \\(.*\\)/fd \\1 -> \\2/p'; (echo from-the-sandbox >&25) 2>&1 && echo wrote-25 || echo no-25";

/** A unix socket connected to a listener of the test's (what it hears is returned), and a file: the daemon's fds 25 and 5. */
async function leakedDescriptors(t: TestContext): Promise<{ passFds: Record<number, number>; heard: () => string }> {
  const dir = tempDir(t);
  let heard = "";
  const accepted: net.Socket[] = [];
  const server = net.createServer((c) => accepted.push(c.on("data", (d) => (heard += d.toString())).on("error", () => {})));
  await new Promise<void>((resolve) => server.listen(join(dir, "parent.sock"), resolve));
  const client = net.connect(join(dir, "parent.sock"));
  t.after(() => {
    client.destroy();
    for (const c of accepted) c.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  await new Promise<void>((resolve, reject) => client.once("connect", resolve).once("error", reject));
  const file = openSync(join(dir, "parent-file"), "w");
  t.after(() => closeSync(file));
  const socketFd = (client as unknown as { _handle: { fd: number } })._handle.fd;
  return { passFds: { 5: file, 25: socketFd }, heard: () => heard };
}

/** The command's descriptors above 2, besides the listing's own (the /proc/<pid>/fd directory `ls` reads). */
function extraFds(listing: string): string[] {
  return [...listing.matchAll(/^fd (\d+) -> (.*)$/gm)].filter(([, n, target]) => Number(n) > 2 && !/^\/proc\/\d+\/fd$/.test(target)).map(([line]) => line);
}

async function check(t: TestContext, settings: object, how: "model" | "user"): Promise<void> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  const leak = await leakedDescriptors(t);
  writeSettings(home, { ...FLOW_SETTINGS, ...settings });
  const d = startRpcDaemon(t, { home, fake, cwd, passFds: leak.passFds });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const text = how === "model" ? (await modelCalls(d.peer, fake, s.sessionId, "bash", { command: LIST })).text : (await d.peer.request("bash", { sessionId: s.sessionId, command: LIST })).output;
  assert.match(text, /^fd 0 -> /m, text);
  assert.deepEqual(extraFds(text), [], `only fds 0-2 reach the command:\n${text}`);
  assert.match(text, /^no-25$/m, text);
  assert.equal(leak.heard(), "", "nothing reached the parent's listener");
  // the daemon itself no longer holds them either (so no other child of it gets them)
  const held = readdirSync(`/proc/${d.pid}/fd`).map(Number);
  assert.equal(held.includes(25), false, `the daemon holds fds ${held.join(" ")}`);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
}

test("a descriptor the daemon inherited (a unix socket at fd 25, a file at 5) does not reach a sandboxed command (network off)", { skip }, async (t) => {
  await check(t, {}, "model");
});

test("nor a sandboxed command with its own network (bwrap's handshake descriptors are closed before the command)", { skip: skipNet }, async (t) => {
  await check(t, { sandbox: { network: true } }, "model");
});

test("nor the model's command with the sandbox off", async (t) => {
  await check(t, { sandbox: { mode: "off" } }, "model");
});

test("nor the user's own bash method", async (t) => {
  await check(t, {}, "user");
});
