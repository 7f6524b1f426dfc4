// Limits on one sandboxed command (sandbox.limits, set low here to keep the tests fast): a
// process storm is stopped near the limit while the daemon keeps answering; a big allocation is
// killed; the private /tmp fills up; endless output is cut off with its spill file capped, in the
// session's own directory, which goes when the session closes. Each names the setting to raise.
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname } from "node:path";
import { after, before, test } from "node:test";
import { sandboxAvailable } from "../../src/tools/sandbox.js";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, processWithArg, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { modelCalls } from "../support/model-tools.js";
import { tempDir } from "../support/tmp.js";

const probe = sandboxAvailable();
const skip = probe.ok ? false : `${probe.reason}; skipping the sandbox tests (CI installs the Debian package bubblewrap)`;
/** Where the daemon can make cgroups (root on cgroup v1, as in CI) it kills the command and says why; elsewhere rlimits make the command fail on its own. */
const root = process.getuid?.() === 0;

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const LIMITS = { processes: 64, memoryMB: 256, outputMB: 5, tmpMB: 64 };

async function daemon(t: Parameters<typeof tempDir>[0]) {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, sandbox: { limits: LIMITS } });
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  return { d, cwd, s };
}

test("a process storm is stopped near sandbox.limits.processes, and the daemon keeps answering", { skip }, async (t) => {
  const { d, cwd, s } = await daemon(t);
  const other = await d.peer.request("createSession", { cwd });
  const marker = `31.${process.pid % 1000}7`;
  // bounded by the test: at most 1,500 sleeps, and the command times out after 20 s
  const storm = modelCalls(d.peer, fake, s.sessionId, "bash", { command: `for i in $(seq 1500); do sleep ${marker} & echo "started $i"; done; wait`, timeout: 20 });
  const slowest = { ms: 0 };
  let answered = 0;
  const t0 = Date.now();
  const watch = (async () => {
    // another session's getState, while the storm runs
    for (let settled = false; !settled && Date.now() - t0 < 25_000; ) {
      const a = Date.now();
      await d.peer.request("getState", { sessionId: other.sessionId });
      slowest.ms = Math.max(slowest.ms, Date.now() - a);
      answered++;
      settled = await Promise.race([storm.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 50))]);
    }
  })();
  const result = await storm;
  await watch;
  const ms = Date.now() - t0;
  assert.equal(result.isError, true, result.text);
  const started = Math.max(0, ...[...result.text.matchAll(/^started (\d+)$/gm)].map((m) => Number(m[1])));
  assert.ok(started <= LIMITS.processes, `started ${started} processes with a limit of ${LIMITS.processes}`);
  if (root) assert.match(result.text, /Command killed: it tried to run more than 64 processes at once \(sandbox\.limits\.processes\)/);
  assert.ok(ms < 15_000, `stopped after ${ms} ms`);
  assert.ok(answered > 0 && slowest.ms < 2000, `getState answered ${answered} times, the slowest in ${slowest.ms} ms`);
  assert.equal(processWithArg(`sleep ${marker}`), undefined, "no sleep is left");
  t.diagnostic(`storm: ${started} started, stopped after ${ms} ms; getState answered ${answered} times meanwhile, slowest ${slowest.ms} ms`);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});

test("allocating 2 GiB with sandbox.limits.memoryMB 256 fails; 2 GiB to /tmp with tmpMB 64 fails with ENOSPC", { skip }, async (t) => {
  const { d, s } = await daemon(t);
  const alloc = `'${process.execPath}' -e 'const a = []; for (let i = 0; i < 2048; i++) a.push(Buffer.alloc(1 << 20, 1)); console.log("allocated", a.length, "MiB")'`;
  const big = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: alloc, timeout: 20 });
  assert.equal(big.isError, true, big.text);
  assert.doesNotMatch(big.text, /allocated 2048 MiB/);
  if (root) assert.match(big.text, /Command killed: it used more than 256 MiB of memory \(sandbox\.limits\.memoryMB\)/);

  const fill = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: "dd if=/dev/zero of=/tmp/big bs=1M count=2048 2>&1; df -m /tmp | tail -1", timeout: 20 });
  assert.match(fill.text, /No space left on device/, fill.text);
  assert.match(fill.text, /tmpfs\s+48\s/, "the private /tmp is 48 MiB: tmpMB 64 less /dev/shm's quarter");
  // the daemon is fine, and so is the next command
  const next = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: "echo still-here" });
  assert.equal(next.text.trim(), "still-here");
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});

test("output past sandbox.limits.outputMB kills the command; the spill file is capped, in the session's own directory, removed at close", { skip }, async (t) => {
  const { d, s } = await daemon(t);
  const flood = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: "yes 0123456789abcdef | head -c 50000000", timeout: 20 });
  assert.equal(flood.isError, true, flood.text.slice(-500));
  assert.match(flood.text, /Command killed: its output passed 5 MiB \(sandbox\.limits\.outputMB\)/);
  const path = /Full output: (\S+)\]/.exec(flood.text)?.[1];
  assert.ok(path, flood.text.slice(-500));
  assert.ok(statSync(path).size <= LIMITS.outputMB * 1024 * 1024, `spill file of ${statSync(path).size} bytes`);
  const dir = dirname(path);
  assert.equal(dirname(dir), tmpdir(), "under the OS temp dir");
  assert.match(basename(dir), /^pith-\d+-[0-9a-f]{8,32}-/, "the session's own directory");
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  await d.peer.request("closeSession", { sessionId: s.sessionId });
  assert.equal(existsSync(dir), false, "removed when the session closed");
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});
